#!/usr/bin/env bash
# Session 9, run 65 (H100): the method checks counted against the reference compiled the students' way
# (Kit.code_baseline): corpora 3, 4 and 5, then corpus 1.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
s=$(date +%s); timeout 330 ctest --test-dir build -R 'grader\.corpus_lab[345]$' -j1 --output-on-failure > $OUT/corpus345.log 2>&1
echo "corpora 3,4,5 rc=$? ($(( $(date +%s) - s )) s)"; grep -E "Test #|expected" $OUT/corpus345.log | grep -v "as expected" | head -20
grep -h "reference passes" $OUT/corpus345.log
s=$(date +%s); timeout $(( 590 - ($(date +%s) - T0) )) ctest --test-dir build -R 'grader\.corpus_lab1$' -j1 --output-on-failure > $OUT/corpus1.log 2>&1
echo "corpus 1 rc=$? ($(( $(date +%s) - s )) s)"; grep -E "Test #|expected" $OUT/corpus1.log | grep -v "as expected" | head -20
echo "total $(( $(date +%s) - T0 )) s"
