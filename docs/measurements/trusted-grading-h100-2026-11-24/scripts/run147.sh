#!/usr/bin/env bash
# Session 21, run 147 (H100): make reliability on HEAD (lab4), 50 runs of the reference as the student.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
if [ ! -f build/build.ninja ]; then cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }; fi
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
l=$(( 590 - ($(date +%s) - T0) )); s=$(date +%s)
timeout $l python3 scripts/grader_reliability.py --build build --lab 4 --runs 50 --deadline $((l-20)) --output build/rel-147 > $OUT/rel.txt 2>&1
echo "reliability rc=$? ($(( $(date +%s) - s )) s)"; grep -E "^## |runs;|speed|fail" build/rel-147/summary.md | head -24; cp build/rel-147/summary.md $OUT/reliability-lab4.md 2>/dev/null
echo "total $(( $(date +%s) - T0 )) s"
