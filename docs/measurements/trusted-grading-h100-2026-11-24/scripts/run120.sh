#!/usr/bin/env bash
# Session 17, run 120 (H100): lab 1 step 2's kernel spans leave out kernels on another stream than the
# timer's (CUPTI's stream id; run 119's out_of_bounds, a side kernel on the legacy stream in every
# vector_add, read 1.5 us short). Corpus 1 whole; make reliability for lab 1, 30 runs.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
s=$(date +%s); timeout 300 ctest --test-dir build -R "grader\.corpus_lab1\$" --output-on-failure > $OUT/corpus1.log 2>&1
echo "corpus 1 rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/corpus1.log)"; grep -E "^[0-9][0-9]-" $OUT/corpus1.log | grep -v "as expected" | cut -c1-230 | head -12
python3 .devrun/step2_table.py build/corpus/corpus_lab1/results > $OUT/corpus1-step2-table.txt 2>&1; grep -E "out_of_bounds|00-reference|round27" $OUT/corpus1-step2-table.txt | cut -c1-200
left=$(( 580 - ($(date +%s) - T0) ))
s=$(date +%s); timeout $left make reliability LAB=1 RUNS=30 > $OUT/reliability-lab1.log 2>&1
echo "== reliability lab 1: rc=$? ($(( $(date +%s) - s )) s)"; tail -8 $OUT/reliability-lab1.log
echo "total $(( $(date +%s) - T0 )) s"
