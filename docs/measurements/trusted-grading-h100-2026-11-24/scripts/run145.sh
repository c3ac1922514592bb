#!/usr/bin/env bash
# Session 21, run 145 (H100): corpora 2 and 5 whole on HEAD (the record hold now in alternate pairs);
# GPU tests of labs 1, 2 and 5.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
for lab in 2 5; do
  s=$(date +%s); timeout 170 ctest --test-dir build -R "grader\.corpus_lab$lab\$" --output-on-failure > $OUT/corpus$lab.log 2>&1
  echo "corpus $lab rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/corpus$lab.log)"; grep -E "expected [0-9]|, expected" $OUT/corpus$lab.log | cut -c1-220 | head -8
done
left=$(( 590 - ($(date +%s) - T0) ))
s=$(date +%s); timeout $left ctest --test-dir build -L gpu -R '^lab[125]\.' -j1 --output-on-failure > $OUT/ctest-lab125.log 2>&1
echo "lab 1, 2, 5 GPU tests rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/ctest-lab125.log)"; grep -E "\*\*\*Failed|Failed  |Timeout|Not Run" $OUT/ctest-lab125.log | head
echo "total $(( $(date +%s) - T0 )) s"
