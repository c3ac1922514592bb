#!/usr/bin/env bash
# Session 17, run 117 (H100): red teams 27 and 28 mended. The order shake enqueued just before the lab
# function (after its buffers are mapped), its parity per function from a random start; the method checks
# of lab 4 steps 2 and 4 and lab 5 step 3 call by call and on the timed runs; lab 3 step 2 checks the
# compensated sums on step 1's shapes; a 256 x 2048 shape in labs 2, 3 and 5; POSIX names left to the
# imports. Corpora 4, 5 and 2 whole (rounds 27 and 28 included); round 27's lab 1 file 04 graded alone.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
for c in 4 5 2; do
  left=$(( 560 - ($(date +%s) - T0) )); [ $left -lt 60 ] && { echo "corpus $c: not run, $left s left"; continue; }
  s=$(date +%s); timeout $left ctest --test-dir build -R "grader\.corpus_lab$c\$" --output-on-failure > $OUT/corpus$c.log 2>&1
  echo "corpus $c rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/corpus$c.log)"; grep -E "^[0-9][0-9]-" $OUT/corpus$c.log | grep -v "as expected" | cut -c1-230 | head -12
done
python3 - <<'PY'
import json, glob
for f in sorted(glob.glob('build/corpus/corpus_lab*/results/students/*round2[78]*/outcome.json')):
    o = json.load(open(f)); bad = [c for c in o['checks'] if c['verdict'] != 'pass']
    print(o['student'][:70], o['status'], o.get('total'))
    for c in bad: print('   ', c['id'], c['verdict'], c.get('ratio'), (c.get('detail') or '')[:160])
PY
left=$(( 590 - ($(date +%s) - T0) ))
if [ $left -gt 30 ]; then
  mkdir -p /tmp/dp/s && cp -r grader/corpus/red-team/round27/lab1/04-* /tmp/dp/s/
  timeout $left python3 grader/grade.py --lab lab1 --submissions /tmp/dp/s --out /tmp/dp/o --kit build/grading/lab1/kit.json --jobs 4 > $OUT/round27-lab1-04.txt 2>&1
  echo "round 27 lab1/04 rc=$?"; grep -E "^\s+\[|graded" $OUT/round27-lab1-04.txt | tail -2
  python3 -c "import json,glob; o=json.load(open(glob.glob('/tmp/dp/o/students/*/outcome.json')[0])); [print('  ', c['id'], c['verdict'], (c.get('detail') or '')[:220]) for c in o['checks']]"
fi
echo "total $(( $(date +%s) - T0 )) s"
