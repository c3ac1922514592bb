#!/usr/bin/env bash
# Prepared in session 11, to run first next session (H100): corpora 1 (round 19's rows: 01 should fail step 2
# by the DRAM floor, 02 and 03 are predicted 100, the open limit) and 3 on the final tree. Then run78.sh.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
left() { echo $(( 585 - ($(date +%s) - T0) )); }
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
for lab in 1 3; do
  s=$(date +%s); timeout $(( $(left) - 5 )) ctest --test-dir build -R "grader\.corpus_lab${lab}\$" -V > $OUT/corpus$lab.log 2>&1
  echo "corpus $lab rc=$? ($(( $(date +%s) - s )) s)"; grep -E "expected" $OUT/corpus$lab.log | grep -v "as expected" | cut -c1-170 | head -12
done
grep -E "round19" $OUT/corpus1.log | grep -E "expected" | sed 's/^[0-9]*: //' | cut -c1-120
python3 docs/measurements/method-checks-h100-2026-11-23/scripts/step2_table.py build/corpus/corpus_lab1 > $OUT/corpus1-step2.txt
