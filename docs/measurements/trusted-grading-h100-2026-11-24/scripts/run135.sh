#!/usr/bin/env bash
# Session 19, run 135 (H100): corpora 2, 4 and 5 whole under the per-stream order shake (8 queues).
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
s=$(date +%s); timeout 260 ctest --test-dir build -R "grader\.corpus_lab[25]\$" -j2 --output-on-failure > $OUT/corpus25.log 2>&1
echo "corpus 2, 5 rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/corpus25.log)"; sed -n '/^submission/,$p' $OUT/corpus25.log | grep -v "as expected\|^submission" | grep -E "^[0-9]" | cut -c1-230 | head -12
left=$(( 590 - ($(date +%s) - T0) ))
s=$(date +%s); timeout $left ctest --test-dir build -R "grader\.corpus_lab4\$" --output-on-failure > $OUT/corpus4.log 2>&1
echo "corpus 4 rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/corpus4.log)"; sed -n '/^submission/,$p' $OUT/corpus4.log | grep -v "as expected\|^submission" | grep -E "^[0-9]" | cut -c1-230 | head -12
echo "total $(( $(date +%s) - T0 )) s"
