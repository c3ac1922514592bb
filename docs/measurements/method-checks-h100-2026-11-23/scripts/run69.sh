#!/usr/bin/env bash
# Session 10 (H100, run 68's machine kept warm): corpus 1, then make reliability for labs 1, 3 and 4,
# 20 runs each (issue 15's last reliability item; labs 2 and 5 had theirs in run 67).
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
[ -f build/build.ninja ] || { cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1; cmake --build build -j16 > $OUT/build.log 2>&1; echo "cold build $(( $(date +%s) - T0 )) s"; }
s=$(date +%s); timeout 260 ctest --test-dir build -R 'grader\.corpus_lab1$' --output-on-failure > $OUT/corpus1.log 2>&1
echo "corpus 1 rc=$? ($(( $(date +%s) - s )) s)"; grep -E "Test #|expected" $OUT/corpus1.log | grep -v "as expected" | head -20
left=$(( 588 - ($(date +%s) - T0) ))
[ $left -gt 60 ] && timeout $left python3 scripts/grader_reliability.py --build build --lab 1 --lab 3 --lab 4 --runs 20 --deadline $((left-8)) --output build/rel > $OUT/rel.txt 2>&1
grep -E "^## |runs;" build/rel/summary.md; cp build/rel/summary.md $OUT/reliability-summary.md 2>/dev/null
