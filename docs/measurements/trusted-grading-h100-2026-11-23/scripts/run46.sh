#!/usr/bin/env bash
# Session 5, run 46: HEAD c14b201. The graded corpora (red-team entries among them) in the sandbox, with runners in cgroups.
export PATH=/usr/local/cuda/bin:$PATH
[ -d build ] || cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head; exit 1; }
s=$(date +%s)
timeout 540 ctest --test-dir build -R 'grader\.corpus_lab[12345]$' -j1 --output-on-failure > $OUT/corpus.log 2>&1
echo "corpora rc=$? ($(( $(date +%s) - s )) s)"; grep -E "tests passed|Passed|Failed|\*\*\*" $OUT/corpus.log | head -12
