#!/usr/bin/env bash
# Session 5, run 41: continue make reliability (build/rel from run 40) towards 50 runs per lab.
export PATH=/usr/local/cuda/bin:$PATH
[ -d build ] || { cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1; }
cmake --build build -j16 > $OUT/build.log 2>&1
ls build/rel 2>/dev/null | head -3
s=$(date +%s)
timeout 570 python3 scripts/grader_reliability.py --build build --runs 50 --deadline 555 --output build/rel > $OUT/reliability.txt 2>&1
echo "reliability rc=$? ($(( $(date +%s) - s )) s)"; grep -E "^## |timing failures|deadline" build/rel/summary.md $OUT/reliability.txt | head -20
cp build/rel/summary.md $OUT/rel-summary.md
