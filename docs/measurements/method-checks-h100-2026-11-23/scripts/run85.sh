#!/usr/bin/env bash
# Session 12: the launch watch under compute-sanitizer (grade.py --sanitize, corpus_lab1_sanitize), then lab 4 reliability.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
left() { echo $(( 400 - ($(date +%s) - T0) )); }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head; exit 1; }
s=$(date +%s); timeout 280 ctest --test-dir build -R "grader\.corpus_lab1_sanitize\$" -V > $OUT/corpus1-sanitize.log 2>&1
echo "corpus 1 sanitize rc=$? ($(( $(date +%s) - s )) s)"; grep -E "expected" $OUT/corpus1-sanitize.log | cut -c1-150
grep -h "not watched" build/corpus/corpus_lab1_sanitize/students/*/*.log build/corpus/corpus_lab1_sanitize/*/*.log 2>/dev/null | sort | uniq -c | head -3
l=$(left); [ $l -gt 40 ] && timeout $l python3 scripts/grader_reliability.py --build build --lab 4 --runs 6 --deadline $((l-10)) --output build/rel4 > $OUT/rel4.txt 2>&1
grep -E "runs;|speed" build/rel4/summary.md; cp build/rel4/summary.md $OUT/reliability-lab4.md 2>/dev/null
