#!/usr/bin/env bash
# Session 22: make reliability for one lab (50 runs of the reference as the student) within a time limit.
# bash rel.sh LAB SECONDS
export PATH=/usr/local/cuda/bin:$PATH
if [ ! -f build/build.ninja ]; then cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }; fi
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
s=$(date +%s)
timeout $2 python3 scripts/grader_reliability.py --build build --lab $1 --runs 50 --deadline $(( $2 - 20 )) --output build/rel-lab$1 > $OUT/rel-lab$1.txt 2>&1
echo "reliability lab $1 rc=$? ($(( $(date +%s) - s )) s)"; grep -E "^## |runs;|speed|fail" build/rel-lab$1/summary.md | head -24; cp build/rel-lab$1/summary.md $OUT/reliability-lab$1.md 2>/dev/null
