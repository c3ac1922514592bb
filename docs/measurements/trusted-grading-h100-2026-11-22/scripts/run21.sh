#!/usr/bin/env bash
# Sample spread of the clock (labs 1-3), lab 1's GPU tests, lab 1's corpus in the sandbox.
set -o pipefail
export PATH=/usr/local/cuda/bin:$PATH
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
refvsref() {
  lab=$1
  build/labs/lab$lab/lab${lab}_grader --student build/labs/lab$lab/liblab${lab}_reference.so --results $OUT/ref-lab$lab-$2.json --output-dir /tmp/o > $OUT/ref-lab$lab-$2.txt 2>&1
  python3 -c "
import json; d=json.load(open('$OUT/ref-lab$lab-$2.json'))
for c in d['checks']:
  if c.get('ratio'):
    v=c.get('values',{}); f=lambda k: round(v.get(k,0),3)
    print('lab$lab', c['id'], round(c['ratio'],3), 'pairs p10-p90', f('pair_ratio_p10'), f('pair_ratio_p90'), 'student ms', f('student_ms_p10'), f('student_ms_p90'), 'ref ms', f('reference_ms_p10'), f('reference_ms_p90'), 'base', round(v.get('base_us',0)), c['verdict'])"
}
for run in a b; do for lab in 1 2 3; do refvsref $lab $run; done; done
s=$(date +%s)
timeout 150 ctest --test-dir build -L gpu -R '^lab1\.' -j1 --output-on-failure > $OUT/ctest-lab1.log 2>&1
echo "lab 1 GPU tests ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/ctest-lab1.log)"; grep -E "\*\*\*Failed|Failed  |Timeout" $OUT/ctest-lab1.log | head
s=$(date +%s)
timeout 200 python3 grader/corpus/corpus.py test --lab lab1 --build build --work /tmp/corpus1 > $OUT/corpus1.txt 2>&1
echo "corpus lab1 rc=$? ($(( $(date +%s) - s )) s)"; sed -n '/^submission/,$p' $OUT/corpus1.txt | grep -v "as expected" | head -20
