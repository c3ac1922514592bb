#!/usr/bin/env bash
# Session 11 (H100): lab 1 step 2's new bar from the student's own kernel (timed by the runner's events in
# the student's process): lab 1 GPU tests, corpus 1 with each row's step 2 figures, reliability of lab 1.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
left() { echo $(( 585 - ($(date +%s) - T0) )); }
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
s=$(date +%s); timeout 120 ctest --test-dir build -L gpu -R '^lab1\.' -V > $OUT/ctest-lab1.log 2>&1
echo "lab 1 GPU tests rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/ctest-lab1.log)"
grep -E "Test +#|L2/2 launches|by your events, [0-9.]+x by the grader" $OUT/ctest-lab1.log | sed -E 's/^[0-9]+: //' | cut -c1-190 | head -40
s=$(date +%s); timeout 260 ctest --test-dir build -R 'grader\.corpus_lab1$' -V > $OUT/corpus1.log 2>&1
echo "corpus 1 rc=$? ($(( $(date +%s) - s )) s)"; grep -E "expected" $OUT/corpus1.log | grep -v "as expected" | cut -c1-160 | head -12
python3 .devrun/step2_table.py build/corpus/corpus_lab1 | tee $OUT/corpus1-step2.txt
l=$(left); [ $l -gt 60 ] && timeout $l python3 scripts/grader_reliability.py --build build --lab 1 --runs 20 --deadline $((l-10)) --output build/rel > $OUT/rel.txt 2>&1
grep -E "^## |runs;" build/rel/summary.md; cp build/rel/summary.md $OUT/reliability-summary.md 2>/dev/null
python3 .devrun/step2_table.py build/rel > $OUT/rel-step2.txt; awk '{print $4, $6, $8, $10}' $OUT/rel-step2.txt | sort -n | sed -n '1p;$p'
