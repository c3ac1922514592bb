#!/usr/bin/env bash
# Session 14, run 100 (H100): make reliability, 50 runs, for lab 3 after its mixed rows were scaled by powers of two and every compensated call judged.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
[ -f build/build.ninja ] || { cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
l=$(( ${LIMIT:-440} - ($(date +%s) - T0) )); s=$(date +%s)
timeout $l python3 scripts/grader_reliability.py --build build --lab ${LAB:-3} --runs ${RUNS:-50} --deadline $((l-15)) --output build/rel > $OUT/rel.txt 2>&1
echo "reliability lab ${LAB:-3} rc=$? ($(( $(date +%s) - s )) s)"; grep -E "runs;|speed|fail" build/rel/summary.md | head; cp build/rel/summary.md $OUT/reliability-lab${LAB:-3}.md 2>/dev/null
echo "total $(( $(date +%s) - T0 )) s"
