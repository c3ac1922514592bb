#!/usr/bin/env bash
# Session 6, run 54: red team 7's fixes (lab 3 double past 2^32, x near 1 in timed polynomial runs, fresh FMA ceiling), round 7 in the corpora, the plots.
export PATH=/usr/local/cuda/bin:$PATH
s=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - s )) s"
build/labs/lab3/lab3_grader --student build/labs/lab3/liblab3_reference.so --results build/r3.json --output-dir build/o3 > $OUT/lab3.txt 2>&1; echo "lab3 rc=$?"
grep -E "correct for|keeps up|keep up" $OUT/lab3.txt | cut -c1-200
python3 -c "
import json; d=json.load(open('build/r3.json'))
for c in d['checks']:
    v={k:round(x,1) for k,x in c['values'].items() if 'ceiling' in k or 'gflops' in k}
    print(c['id'], c['verdict'], round(c['seconds'],2), v)"
python3 -c "import matplotlib" 2>/dev/null && echo "matplotlib here" || echo "no matplotlib here"
python3 tests/host/plots_test.py; echo "plots rc=$?"
s=$(date +%s)
timeout 200 ctest --test-dir build -L gpu -R '^lab[345]\.' -j1 --output-on-failure > $OUT/ctest.log 2>&1
echo "lab 3-5 GPU tests ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/ctest.log)"; grep -E "\*\*\*Failed|Failed  |Timeout" $OUT/ctest.log | head
s=$(date +%s)
timeout 240 ctest --test-dir build -R 'grader\.corpus_lab[235]$' -j1 --output-on-failure > $OUT/corpus.log 2>&1
echo "corpora 2,3,5 rc=$? ($(( $(date +%s) - s )) s)"; grep -E "Passed|Failed|\*\*\*|expected|got" $OUT/corpus.log | head -20
