#!/usr/bin/env bash
# Experiment: where does the student's extra time come from? Warm-up calls before the timed call.
export PATH=/usr/local/cuda/bin:$PATH
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
refvsref() {
  lab=$1
  MEMLAB_WARMUP=$2 build/labs/lab$lab/lab${lab}_grader --student build/labs/lab$lab/liblab${lab}_reference.so --results $OUT/ref-lab$lab-$2-$3.json --output-dir /tmp/o $4 > /dev/null 2>&1
  python3 -c "
import json; d=json.load(open('$OUT/ref-lab$lab-$2-$3.json'))
for c in d['checks']:
  if c.get('ratio') and c['id'].endswith('speed'):
    v=c.get('values',{}); f=lambda k: round(v.get(k,0),3)
    print('warmup $2 lab$lab', c['id'], round(c['ratio'],3), 'pairs p10-p90', f('pair_ratio_p10'), f('pair_ratio_p90'), 'student ms', f('student_ms_p10'), f('student_ms_p90'), 'ref ms', f('reference_ms_p10'), f('reference_ms_p90'), 'base', round(v.get('base_us',0)))"
}
for run in a b c; do for w in 0 1 2 3; do refvsref 1 $w $run "[step1][speed]"; done; done
for run in a b; do for w in 0 1 3; do refvsref 2 $w $run ""; done; done
