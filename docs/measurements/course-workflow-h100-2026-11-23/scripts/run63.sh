#!/usr/bin/env bash
# Prepared in session 7 (H100, the machine of run62 kept warm): corpora 1 and 4, then make reliability for issue 15.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
[ -f build/build.ninja ] || { cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1; cmake --build build -j16 > $OUT/build.log 2>&1; }
timeout 330 ctest --test-dir build -R 'grader\.corpus_lab[14]$' -j1 --output-on-failure > $OUT/corpus.log 2>&1
echo "corpora 1,4 rc=$? ($(( $(date +%s) - T0 )) s)"; grep -E "Test #|expected" $OUT/corpus.log | grep -v "as expected" | head -20
left=$(( 585 - ($(date +%s) - T0) ))
[ $left -gt 60 ] && timeout $left python3 scripts/grader_reliability.py --build build --lab 2 --lab 5 --runs 20 --deadline $((left-10)) --output build/rel > $OUT/rel.txt 2>&1
grep -E "^## |runs;" build/rel/summary.md; cp build/rel/summary.md $OUT/reliability-summary.md 2>/dev/null
