#!/usr/bin/env bash
# Session 9, run 67 (H100, same machine): make reliability for labs 2 and 5, 20 runs each, in the device time left.
export PATH=/usr/local/cuda/bin:$PATH
timeout 185 python3 scripts/grader_reliability.py --build build --lab 2 --lab 5 --runs 20 --deadline 175 --output build/rel > $OUT/rel.txt 2>&1; echo rc=$?
cp build/rel/summary.md $OUT/reliability-summary.md; grep -E "^## |runs;|fail" build/rel/summary.md | head -20
