#!/usr/bin/env bash
# Session 20, run 142 (H100): corpus 3 whole at HEAD (polynomial past 2^32, poison counted over y, the hold
# after event records); lab 3 GPU tests.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
s=$(date +%s); timeout 120 ctest --test-dir build -L gpu -R '^lab3\.' -j1 --output-on-failure > $OUT/ctest-lab3.log 2>&1
echo "lab 3 GPU tests rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/ctest-lab3.log)"; grep -E "\*\*\*Failed|Failed  |Timeout" $OUT/ctest-lab3.log | head
left=$(( 592 - ($(date +%s) - T0) ))
s=$(date +%s); timeout $left ctest --test-dir build -R "grader\.corpus_lab3\$" --output-on-failure > $OUT/corpus3.log 2>&1
echo "corpus 3 rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/corpus3.log)"; grep -E "expected [0-9]|, expected" $OUT/corpus3.log | cut -c1-220 | head -12
echo "total $(( $(date +%s) - T0 )) s"
