#!/usr/bin/env bash
# Session 13, run 91 (H100, a fresh machine): make reliability for labs 2 and 5, 50 runs each.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
l=$(( 585 - ($(date +%s) - T0) )); s=$(date +%s)
timeout $l python3 scripts/grader_reliability.py --build build --lab 2 --lab 5 --runs 50 --deadline $((l-15)) --output build/rel > $OUT/rel.txt 2>&1
echo "reliability labs 2 and 5 rc=$? ($(( $(date +%s) - s )) s)"; grep -E "^## |runs;|speed|fail" build/rel/summary.md | head -20; cp build/rel/summary.md $OUT/reliability-labs2-5.md 2>/dev/null
echo "total $(( $(date +%s) - T0 )) s"
