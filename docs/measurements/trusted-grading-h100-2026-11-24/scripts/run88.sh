#!/usr/bin/env bash
# Session 13, run 88 (H100): corpus 3 on the current tree (first GPU run of 6e37a22's shared read_every_sum and
# errors_of_kind, with run 87's parallel compare), then make reliability for lab 1, 50 runs.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
left() { echo $(( 585 - ($(date +%s) - T0) )); }
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
s=$(date +%s); timeout 300 ctest --test-dir build -R 'grader\.corpus_lab3$' --output-on-failure > $OUT/corpus3.log 2>&1
echo "corpus 3 rc=$? ($(( $(date +%s) - s )) s)"; grep -E "Test #|expected" $OUT/corpus3.log | grep -v "as expected" | head -20
l=$(left); s=$(date +%s)
timeout $l python3 scripts/grader_reliability.py --build build --lab 1 --runs 50 --deadline $((l-10)) --output build/rel1 > $OUT/rel1.txt 2>&1
echo "reliability lab 1 rc=$? ($(( $(date +%s) - s )) s)"; grep -E "runs;|speed|fail" build/rel1/summary.md | head; cp build/rel1/summary.md $OUT/reliability-lab1.md 2>/dev/null
echo "total $(( $(date +%s) - T0 )) s"
