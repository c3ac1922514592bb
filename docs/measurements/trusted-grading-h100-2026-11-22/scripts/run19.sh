#!/usr/bin/env bash
# Runners pinned to one CPU: reference against itself; the lab 2 mutant that failed; the red team.
set -o pipefail
export PATH=/usr/local/cuda/bin:$PATH
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
refvsref() {
  lab=$1
  build/labs/lab$lab/lab${lab}_grader --student build/labs/lab$lab/liblab${lab}_reference.so --results /tmp/r.json --output-dir /tmp/o > $OUT/ref-lab$lab-$2.txt 2>&1
  python3 -c "
import json; d=json.load(open('/tmp/r.json'))
keys=('base_us','share_of_call','student_warm_speedup','reference_warm_speedup')
print('lab$lab ref-vs-ref', ' '.join(f\"{c['id']}={c['ratio']:.3f}\" for c in d['checks'] if c.get('ratio')), {k:round(v,3) for c in d['checks'] for k,v in c.get('values',{}).items() if k in keys}, 'not passed:', [c['id'] for c in d['checks'] if c['verdict']!='pass'])"
}
for run in a b c; do for lab in 1 2 3; do refvsref $lab $run; done; done
timeout 60 ctest --test-dir build -R 'lab2.mutant_column_sums_not_zeroed' --output-on-failure > $OUT/lab2-mutant.log 2>&1; echo "lab2 mutant rc=$?"; grep -E "step3|FAIL|ratio|took" $OUT/lab2-mutant.log | head -12
for lab in lab1 lab5 lab4; do
  s=$(date +%s)
  timeout 200 python3 grader/grade.py --lab $lab --submissions grader/corpus/red-team/$lab --out /tmp/rt-$lab --build build > $OUT/redteam-$lab.txt 2>&1
  echo "red team $lab rc=$? ($(( $(date +%s) - s )) s)"; cut -d, -f1-12 /tmp/rt-$lab/gradebook.csv 2>/dev/null
  cp /tmp/rt-$lab/gradebook.csv $OUT/redteam-$lab-gradebook.csv 2>/dev/null
done
tar czf $OUT/redteam-feedback.tgz /tmp/rt-*/students/*/feedback.txt 2>/dev/null
