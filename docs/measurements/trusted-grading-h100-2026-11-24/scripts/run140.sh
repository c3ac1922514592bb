#!/usr/bin/env bash
# Session 20, run 140 (H100): corpora 1 and 4 whole at HEAD (lab 1's yardstick from direct calls, the hold
# after event records).
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
left=$(( 590 - ($(date +%s) - T0) ))
s=$(date +%s); timeout $left ctest --test-dir build -R "grader\.corpus_lab[14]\$" -j2 --output-on-failure > $OUT/corpus14.log 2>&1
echo "corpora 1 and 4 rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/corpus14.log)"; grep -E "Test +#" $OUT/corpus14.log
grep -E "expected [0-9]|not as expected|total [0-9]+, expected" $OUT/corpus14.log | cut -c1-220 | head -12
echo "total $(( $(date +%s) - T0 )) s"
