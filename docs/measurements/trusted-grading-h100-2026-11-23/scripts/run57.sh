#!/usr/bin/env bash
# Session 7, run 57: corpora 1, 4 and 5 on a clean tree (run 56 had copied the references over the skeletons).
export PATH=/usr/local/cuda/bin:$PATH
[ -f build/build.ninja ] || { cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1; cmake --build build -j16 > $OUT/build.log 2>&1; }
cmake --build build -j16 > $OUT/build2.log 2>&1
s=$(date +%s)
timeout 420 ctest --test-dir build -R 'grader\.corpus_lab[145]$' -j1 --output-on-failure > $OUT/corpus.log 2>&1
echo "corpora 1,4,5 rc=$? ($(( $(date +%s) - s )) s)"; grep -E "Test #|expected" $OUT/corpus.log | grep -v "as expected"
