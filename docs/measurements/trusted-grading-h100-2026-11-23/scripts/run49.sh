#!/usr/bin/env bash
# Session 6, run 49: red team 6 (14 submissions written against 76778d1) graded as make grade does; then lab 2 reliability for the floor failure.
export PATH=/usr/local/cuda/bin:$PATH
s=$(date +%s)
[ -d build ] || cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - s )) s"
timeout 330 bash .devrun/redteam6/run_gpu.sh > $OUT/rt6.txt 2>&1; echo "rt6 rc=$?"; cat $OUT/rt6.txt | cut -c1-400
tar czf $OUT/rt6.tgz build/rt6/details.json build/rt6/*.console.txt build/rt6/lab*/students/*/outcome.json 2>/dev/null
left=$(( 560 - ($(date +%s) - s) ))
[ $left -gt 60 ] && timeout $left python3 scripts/grader_reliability.py --build build --lab 2 --runs 60 --deadline $((left-10)) --output build/rel2 > $OUT/rel2.txt 2>&1
grep -A12 "^## lab2" build/rel2/summary.md | grep -E "runs;|rows_speed|columns_speed"; grep -A3 "^Failures" build/rel2/summary.md
