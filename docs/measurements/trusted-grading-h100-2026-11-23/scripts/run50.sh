#!/usr/bin/env bash
# Session 6, run 50: reliability of labs 3-5 on HEAD 76778d1 (run 48 ran out of time after lab 2).
export PATH=/usr/local/cuda/bin:$PATH
timeout 420 python3 scripts/grader_reliability.py --build build --lab 3 --lab 4 --lab 5 --runs 25 --deadline 400 --output build/rel345 > $OUT/rel345.txt 2>&1
grep -E "^## |runs;" build/rel345/summary.md; grep -E "_speed|step2.timer" build/rel345/summary.md; grep -A6 "^Failures" build/rel345/summary.md
cp build/rel345/summary.md $OUT/rel345-summary.md
tar czf $OUT/fails.tgz $(grep -l '"verdict": "fail"' build/rel345/*/run*.json 2>/dev/null) /dev/null 2>/dev/null
