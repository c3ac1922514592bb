#!/usr/bin/env bash
# Session 20, run 139 (H100): a hold after every event record of a shaken call (launch_watch.cpp,
# hold_after_event_records). Corpora 2 and 5 whole, lab 2 and lab 1 GPU tests.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
s=$(date +%s); timeout 150 ctest --test-dir build -L gpu -R '^lab[12]\.' -j1 --output-on-failure > $OUT/ctest-lab12.log 2>&1
echo "lab 1-2 GPU tests rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/ctest-lab12.log)"; grep -E "\*\*\*Failed|Failed  |Timeout" $OUT/ctest-lab12.log | head
left=$(( 590 - ($(date +%s) - T0) ))
s=$(date +%s); timeout $left ctest --test-dir build -R "grader\.corpus_lab[25]\$" -j2 --output-on-failure > $OUT/corpus25.log 2>&1
echo "corpora 2 and 5 rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/corpus25.log)"; grep -E "^[0-9]+-.*(expected|not as)" $OUT/corpus25.log | grep -v "as expected" | cut -c1-220 | head -12
grep -E "round32|round31|round28" $OUT/corpus25.log | cut -c1-160 | head -12
echo "total $(( $(date +%s) - T0 )) s"
