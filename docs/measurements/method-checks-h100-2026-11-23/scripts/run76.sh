#!/usr/bin/env bash
# Session 11 (H100), the final tree: every lab's GPU tests (issue 15's whole-suite table), then corpus 1
# with round 18's final expectations.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
s=$(date +%s); timeout 250 ctest --test-dir build -L gpu -E '^grader\.' -j1 > $OUT/ctest-labs.log 2>&1
echo "lab GPU tests rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/ctest-labs.log)"
grep -E "\*\*\*Failed|\(Failed\)|Timeout" $OUT/ctest-labs.log | head
l=$(( 575 - ($(date +%s) - T0) )); s=$(date +%s); timeout $l ctest --test-dir build -R 'grader\.corpus_lab1$' -V > $OUT/corpus1.log 2>&1
echo "corpus 1 rc=$? ($(( $(date +%s) - s )) s)"; grep -E "expected" $OUT/corpus1.log | grep -v "as expected" | cut -c1-170 | head -12
grep -E "round18" $OUT/corpus1.log | grep -E "expected" | sed 's/^[0-9]*: //' | cut -c1-110
python3 .devrun/step2_table.py build/corpus/corpus_lab1 > $OUT/corpus1-step2.txt
