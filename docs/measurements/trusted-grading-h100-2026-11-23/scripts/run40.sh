#!/usr/bin/env bash
# Session 5, run 40: HEAD 682f93d. Every lab GPU test (make gpu-check's script), then make reliability's script 12 runs per lab (continued by run 41).
export PATH=/usr/local/cuda/bin:$PATH
s=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - s )) s"
s=$(date +%s)
TESTS='^lab[1-5]\.' timeout 240 scripts/gpu-check.sh build > $OUT/gpu-check.txt 2>&1
echo "gpu-check rc=$? ($(( $(date +%s) - s )) s)"; tail -25 $OUT/gpu-check.txt
cp build/gpu-check/run1.log $OUT/gpu-check-run1.log
s=$(date +%s)
timeout 300 python3 scripts/grader_reliability.py --build build --runs 12 --deadline 290 --output build/rel > $OUT/reliability.txt 2>&1
echo "reliability rc=$? ($(( $(date +%s) - s )) s)"; grep -E "timing failures|deadline" build/rel/summary.md $OUT/reliability.txt | head
cp build/rel/summary.md $OUT/rel-summary.md
