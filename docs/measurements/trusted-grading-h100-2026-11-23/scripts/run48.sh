#!/usr/bin/env bash
# Session 6, run 48 (planned): lab 1 corpus in the sandbox, then make reliability's script until the deadline; every failing run's results kept.
export PATH=/usr/local/cuda/bin:$PATH
[ -d build ] || cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1
cmake --build build -j16 > $OUT/build.log 2>&1 || exit 1
s=$(date +%s)
timeout 260 ctest --test-dir build -R 'grader\.corpus_lab1$' -j1 --output-on-failure > $OUT/corpus1.log 2>&1
echo "corpus lab1 rc=$? ($(( $(date +%s) - s )) s)"; grep -E "Passed|Failed|\*\*\*" $OUT/corpus1.log | head -4
timeout 300 python3 scripts/grader_reliability.py --build build --runs 50 --deadline 290 --output build/rel > $OUT/reliability.txt 2>&1
grep -E "^## |timing failures|deadline" build/rel/summary.md | head -12; cp build/rel/summary.md $OUT/rel-summary.md
tar czf $OUT/fails.tgz $(grep -l '"verdict": "fail"' build/rel/*/run*.json 2>/dev/null) /dev/null 2>/dev/null
