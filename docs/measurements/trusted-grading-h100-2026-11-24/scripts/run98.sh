#!/usr/bin/env bash
# Session 14, run 98 (H100): the session's last tree on the labs runs 95-97 did not cover whole: labs 1, 2
# and 5's GPU tests, then corpora 5 and 1 (the launch record's new field reaches every lab).
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
s=$(date +%s); timeout 200 ctest --test-dir build -L gpu -R '^lab[125]\.' -j1 --output-on-failure > $OUT/ctest-labs125.log 2>&1
echo "lab 1, 2 and 5 GPU tests rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/ctest-labs125.log)"; grep -E "\*\*\*Failed|Failed  |Timeout" $OUT/ctest-labs125.log | head
for lab in 5 1; do
  left=$(( 585 - ($(date +%s) - T0) ))
  [ $left -lt 60 ] && { echo "corpus $lab: not run, $left s left"; continue; }
  s=$(date +%s); timeout $left ctest --test-dir build -R "grader\.corpus_lab$lab\$" --output-on-failure > $OUT/corpus$lab.log 2>&1
  echo "corpus $lab rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed|Test #' $OUT/corpus$lab.log | tail -1)"
  grep -E "^[0-9][0-9]-" $OUT/corpus$lab.log | grep -v "as expected" | cut -c1-220 | head -12
done
echo "total $(( $(date +%s) - T0 )) s"
