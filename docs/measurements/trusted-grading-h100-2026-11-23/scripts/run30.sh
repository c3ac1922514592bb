#!/usr/bin/env bash
# Session 4, run 30: HEAD f945e1c. Reference against itself in every lab (with the reference-alone figures), every lab GPU test, red team round 3 graded in the sandbox.
set -o pipefail
export PATH=/usr/local/cuda/bin:$PATH
s=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - s )) s"
refvsref() {
  lab=$1
  s=$(date +%s)
  build/labs/lab$lab/lab${lab}_grader --student build/labs/lab$lab/liblab${lab}_reference.so --results $OUT/ref-lab$lab-$2.json --output-dir /tmp/o > $OUT/ref-lab$lab-$2.txt 2>&1
  echo "lab$lab rc=$? $(( $(date +%s) - s )) s"
  python3 -c "
import json; d=json.load(open('$OUT/ref-lab$lab-$2.json'))
for c in d['checks']:
  if c.get('ratio'):
    v=c.get('values',{}); f=lambda k: round(v.get(k,0),3)
    print('lab$lab', c['id'], round(c['ratio'],3), 'pairs', f('pair_ratio_p10'), f('pair_ratio_p90'), 'ref ms', f('reference_ms_p10'), f('reference_ms_p90'), 'alone', f('reference_alone_ms'), 'base', round(v.get('base_us',0)), c['verdict'])
print('lab$lab not passed:', [(c['id'], c['verdict']) for c in d['checks'] if c['verdict']!='pass'])"
}
refvsref 1 a; refvsref 2 a; refvsref 3 a; refvsref 4 a; refvsref 5 a
s=$(date +%s)
timeout 300 ctest --test-dir build -L gpu -R '^lab[1-5]\.' -j1 --output-on-failure > $OUT/ctest.log 2>&1
echo "lab GPU tests ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/ctest.log)"; grep -E "\*\*\*Failed|Failed  |Timeout" $OUT/ctest.log | head
s=$(date +%s)
timeout 100 python3 grader/grade.py --lab lab1 --submissions grader/corpus/red-team/round3/lab1 --out /tmp/rt3 --build build > $OUT/round3.txt 2>&1
echo "round3 rc=$? ($(( $(date +%s) - s )) s)"; cut -d, -f1-9 /tmp/rt3/gradebook.csv 2>/dev/null; tail -3 $OUT/round3.txt
cp -r /tmp/rt3 $OUT/round3-out 2>/dev/null
