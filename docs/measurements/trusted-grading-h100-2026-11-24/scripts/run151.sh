#!/usr/bin/env bash
# Session 21, run 151 (H100): red team 35's fixes (tall matrices in labs 2, 3 and 5; lab 3 step 1's float sums
# not widened to double). Corpora 3 and 2 whole, one after the other.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
for lab in 3 2; do
  left=$(( 585 - ($(date +%s) - T0) ))
  s=$(date +%s); timeout $left ctest --test-dir build -R "grader\.corpus_lab$lab\$" --output-on-failure > $OUT/corpus$lab.log 2>&1
  echo "corpus $lab rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/corpus$lab.log)"; grep -E "expected [0-9]|, expected" $OUT/corpus$lab.log | cut -c1-260 | head -10
done
grep -h "reference passes here" $OUT/corpus*.log | head -3
echo "total $(( $(date +%s) - T0 )) s"
