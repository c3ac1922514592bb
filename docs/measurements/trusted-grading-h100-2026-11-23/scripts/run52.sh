#!/usr/bin/env bash
# Session 6, run 52: corpora 4, 5 and 1 with round 6 (same HEAD as run 51), then lab 2 and 3 reliability on the floors with a margin.
export PATH=/usr/local/cuda/bin:$PATH
s=$(date +%s)
timeout 360 ctest --test-dir build -R 'grader\.corpus_lab[451]$' -j1 --output-on-failure > $OUT/corpus.log 2>&1
echo "corpora 4,5,1 rc=$? ($(( $(date +%s) - s )) s)"; grep -E "Passed|Failed|\*\*\*|expected|got" $OUT/corpus.log | head -20
left=$(( 560 - ($(date +%s) - s) ))
[ $left -gt 40 ] && timeout $left python3 scripts/grader_reliability.py --build build --lab 2 --lab 3 --runs 20 --deadline $((left-10)) --output build/rel23 > $OUT/rel23.txt 2>&1
grep -E "^## |runs;|_speed" build/rel23/summary.md; grep -A3 "^Failures" build/rel23/summary.md; cp build/rel23/summary.md $OUT/rel23-summary.md 2>/dev/null
