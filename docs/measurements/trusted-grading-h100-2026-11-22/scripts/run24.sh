#!/usr/bin/env bash
# Experiment: what the grader's clock adds to lab 1's launch (reference's own events beside it), with and without an L2 flush inside the call.
export PATH=/usr/local/cuda/bin:$PATH
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
one() {
  env $3 build/labs/$1/$1_grader --student build/labs/$1/lib$1_$2.so --results $OUT/r.json --output-dir /tmp/o "[step1][speed]" > /dev/null 2>&1
  python3 -c "
import json; d=json.load(open('$OUT/r.json'))
for c in d['checks']:
  if c.get('ratio') and c['id'].endswith('speed'):
    v=c.get('values',{}); f=lambda k: round(v.get(k,0),4)
    print('$2 $3', c['id'], round(c['ratio'],3), 'student ms', f('student_ms_p10'), f('student_ms_p90'), 'ref ms', f('reference_ms_p10'), f('reference_ms_p90'), 'ref events', f('reference_event_ms'), 'base', round(v.get('base_us',0)))"
}
for run in a b; do
  one lab1 reference X=1; one lab1 reference MEMLAB_FLUSH_IN_CALL=1; one lab1 red_team_06_fair_timer_syncs_first X=1
done
