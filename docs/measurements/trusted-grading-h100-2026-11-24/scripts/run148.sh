#!/usr/bin/env bash
# Session 21, run 148 (H100): make reliability on HEAD (labs25), 50 runs of the reference as the student.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
if [ ! -f build/build.ninja ]; then cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }; fi
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
l=$(( 590 - ($(date +%s) - T0) )); s=$(date +%s)
timeout $l python3 scripts/grader_reliability.py --build build --lab 5 --lab 2 --runs 50 --deadline $((l-20)) --output build/rel-148 > $OUT/rel.txt 2>&1
echo "reliability rc=$? ($(( $(date +%s) - s )) s)"; grep -E "^## |runs;|speed|fail" build/rel-148/summary.md | head -24; cp build/rel-148/summary.md $OUT/reliability-labs25.md 2>/dev/null
echo "total $(( $(date +%s) - T0 )) s"
