#!/usr/bin/env bash
# Session 21, run 152 (H100): corpus 5 whole and lab 3's GPU tests on run 151's tree.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
if [ ! -f build/build.ninja ]; then cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }; fi
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
s=$(date +%s); timeout 170 ctest --test-dir build -R "grader\.corpus_lab5\$" --output-on-failure > $OUT/corpus5.log 2>&1
echo "corpus 5 rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/corpus5.log)"; grep -E "expected [0-9]|, expected" $OUT/corpus5.log | cut -c1-260 | head -8
left=$(( 225 - ($(date +%s) - T0) ))
s=$(date +%s); timeout $left ctest --test-dir build -L gpu -R '^lab3\.' -j1 --output-on-failure > $OUT/ctest-lab3.log 2>&1
echo "lab 3 GPU tests rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/ctest-lab3.log)"; grep -E "\*\*\*Failed|Failed  |Timeout|Not Run" $OUT/ctest-lab3.log | head
echo "total $(( $(date +%s) - T0 )) s"
