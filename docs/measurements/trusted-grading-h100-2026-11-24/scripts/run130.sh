#!/usr/bin/env bash
# Session 19, run 130 (H100): corpus 1 whole on run 129's grader; reliability of labs 1, 4, 5 with
# CUDA_DEVICE_MAX_CONNECTIONS=32 in the runners and the new step 2 rules.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
s=$(date +%s); timeout 290 ctest --test-dir build -R "grader\.corpus_lab1\$" --output-on-failure > $OUT/corpus1.log 2>&1
echo "corpus 1 rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/corpus1.log)"; sed -n '/^submission/,$p' $OUT/corpus1.log | grep -v "as expected" | cut -c1-230 | head -12
for lab in 1 4 5; do
  left=$(( 585 - ($(date +%s) - T0) )); [ $left -lt 30 ] && break
  runs=$([ $lab = 1 ] && echo 20 || echo 10)
  s=$(date +%s); timeout $left python3 scripts/grader_reliability.py --build build --runs $runs --lab $lab --output $OUT/rel$lab > $OUT/rel$lab.log 2>&1
  echo "== reliability lab $lab rc=$? ($(( $(date +%s) - s )) s)"; tail -8 $OUT/rel$lab.log | cut -c1-200
done
echo "total $(( $(date +%s) - T0 )) s"
