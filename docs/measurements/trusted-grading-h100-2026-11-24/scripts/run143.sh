#!/usr/bin/env bash
# Session 20, run 143 (H100): corpus 4 whole at HEAD; lab 4 and 5 GPU tests.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
s=$(date +%s); timeout 320 ctest --test-dir build -R "grader\.corpus_lab4\$" --output-on-failure > $OUT/corpus4.log 2>&1
echo "corpus 4 rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/corpus4.log)"; grep -E "expected [0-9]|, expected" $OUT/corpus4.log | cut -c1-220 | head -12
left=$(( 590 - ($(date +%s) - T0) ))
s=$(date +%s); timeout $left ctest --test-dir build -L gpu -R '^lab[45]\.' -j1 --output-on-failure > $OUT/ctest-lab45.log 2>&1
echo "lab 4-5 GPU tests rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/ctest-lab45.log)"; grep -E "\*\*\*Failed|Failed  |Timeout|Not Run" $OUT/ctest-lab45.log | head
echo "total $(( $(date +%s) - T0 )) s"
