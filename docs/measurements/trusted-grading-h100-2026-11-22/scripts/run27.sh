#!/usr/bin/env bash
# Lab 1 step 2's cache check: at least half the reference's warm speed-up. Timers that wait once or after every launch, the reference; lab 1's corpus.
set -o pipefail
export PATH=/usr/local/cuda/bin:$PATH
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
one() {
  build/labs/lab1/lab1_grader --student build/labs/lab1/liblab1_$1.so --results $OUT/r.json --output-dir /tmp/o --steps 2 > /dev/null 2>&1
  python3 -c "
import json; d=json.load(open('$OUT/r.json'))
for c in d['checks']:
  if c['id']=='step2.timer':
    v=c.get('values',{}); print('$1', c['verdict'], {k: round(x,3) for k,x in v.items() if 'speedup' in k or 'share' in k})"
}
for run in a b; do one reference; one red_team_06_fair_timer_syncs_first; one mutant_waits_after_every_launch; one mutant_times_all_launches_together; done
s=$(date +%s)
timeout 200 python3 grader/corpus/corpus.py test --lab lab1 --build build --work /tmp/corpus1 > $OUT/corpus1.txt 2>&1
echo "corpus lab1 rc=$? ($(( $(date +%s) - s )) s)"; sed -n '/^submission/,$p' $OUT/corpus1.txt | grep -v "as expected" | head -20
grep -E "step2|speedup" $OUT/corpus1.txt | head -5
