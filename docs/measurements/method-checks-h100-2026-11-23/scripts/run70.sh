#!/usr/bin/env bash
# Prepared in session 9 (H100, same machine): make reliability for lab 4, 20 runs (issue 15), then further runs of
# labs 1 and 2 towards issue 14's 50 per lab.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
[ -f build/build.ninja ] || { cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1; cmake --build build -j16 > $OUT/build.log 2>&1; }
timeout 200 python3 scripts/grader_reliability.py --build build --lab 4 --runs 20 --deadline 190 --output build/rel4 > $OUT/rel4.txt 2>&1
grep -E "^## |runs;" build/rel4/summary.md; cp build/rel4/summary.md $OUT/reliability4-summary.md 2>/dev/null
left=$(( 585 - ($(date +%s) - T0) ))
timeout $left python3 scripts/grader_reliability.py --build build --lab 1 --lab 2 --runs 30 --deadline $((left-10)) --output build/rel12 > $OUT/rel12.txt 2>&1
grep -E "^## |runs;" build/rel12/summary.md; cp build/rel12/summary.md $OUT/reliability12-summary.md 2>/dev/null
