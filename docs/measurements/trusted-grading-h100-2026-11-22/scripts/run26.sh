#!/usr/bin/env bash
# Buffers shared as cuMem* file descriptors instead of CUDA IPC handles: reference against itself, every lab GPU test, lab 1's red team in the sandbox.
set -o pipefail
export PATH=/usr/local/cuda/bin:$PATH
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
refvsref() {
  lab=$1
  build/labs/lab$lab/lab${lab}_grader --student build/labs/lab$lab/liblab${lab}_reference.so --results $OUT/ref-lab$lab-$2.json --output-dir /tmp/o > $OUT/ref-lab$lab-$2.txt 2>&1
  grep -E "keeps? up|GB/s \(" $OUT/ref-lab$lab-$2.txt | grep -E "PASS|FAIL" | cut -c1-170 | head -3
  python3 -c "
import json; d=json.load(open('$OUT/ref-lab$lab-$2.json'))
for c in d['checks']:
  if c.get('ratio'):
    v=c.get('values',{}); f=lambda k: round(v.get(k,0),3)
    print('lab$lab', c['id'], round(c['ratio'],3), 'pairs p10-p90', f('pair_ratio_p10'), f('pair_ratio_p90'), 'student ms', f('student_ms_p10'), f('student_ms_p90'), 'ref ms', f('reference_ms_p10'), f('reference_ms_p90'), 'base', round(v.get('base_us',0)), c['verdict'])
print('lab$lab not passed:', [c['id'] for c in d['checks'] if c['verdict']!='pass'], 'share', [round(c['values']['share_of_call'],3) for c in d['checks'] if 'share_of_call' in c.get('values',{})])"
}
refvsref 1 a; refvsref 1 b; refvsref 2 a; refvsref 3 a; refvsref 4 a; refvsref 5 a
s=$(date +%s)
timeout 300 ctest --test-dir build -L gpu -R '^lab[1-5]\.' -j1 --output-on-failure > $OUT/ctest.log 2>&1
echo "lab GPU tests ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/ctest.log)"; grep -E "\*\*\*Failed|Failed  |Timeout" $OUT/ctest.log | head
s=$(date +%s)
timeout 150 python3 grader/grade.py --lab lab1 --submissions grader/corpus/red-team/lab1 --out /tmp/rt-lab1 --build build > $OUT/redteam-lab1.txt 2>&1
echo "red team lab1 rc=$? ($(( $(date +%s) - s )) s)"; cut -d, -f1-9 /tmp/rt-lab1/gradebook.csv 2>/dev/null; tail -3 $OUT/redteam-lab1.txt
