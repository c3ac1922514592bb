#!/usr/bin/env bash
# Session 18, run 126 (H100): red teams 29 and 30 graded as they are (grade.py on their folders), with
# this session's fixes in the tree: the hold judged by a call's last launch, more C-library names
# refused, shapes 2 and 3 past a multiple of 4 (labs 2, 3 and 5), streams of the build's own held.
# Then corpus 2 and corpus 5 whole (their shapes changed).
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
for r in round29/lab1 round30/lab2 round30/lab3 round30/lab4 round30/lab5; do
  lab=${r#*/}; s=$(date +%s)
  timeout 200 python3 grader/grade.py --lab $lab --submissions grader/corpus/red-team/$r --out /tmp/rt-${r/\//-} --kit build/grading/$lab/kit.json > $OUT/rt-${r/\//-}.txt 2>&1
  echo "== $r rc=$? ($(( $(date +%s) - s )) s)"; grep -E "^ +\[[0-9]+/[0-9]+\]" $OUT/rt-${r/\//-}.txt | sed "s/  */ /g" | cut -c1-150
  python3 - /tmp/rt-${r/\//-} <<'PY'
import json, glob, sys
for f in sorted(glob.glob(sys.argv[1] + '/students/*/outcome.json')):
    o = json.load(open(f)); bad = [c for c in o.get('checks', []) if c['verdict'] != 'pass']
    print(f"  {o['student'][:70]:70} {o['status']:14}")
    for c in bad: print('     ', c['id'], c['verdict'], (c.get('detail') or '')[:150].replace('\n', ' '))
PY
done
s=$(date +%s); timeout 200 ctest --test-dir build -R "grader\.corpus_lab[25]\$" --output-on-failure > $OUT/corpus25.log 2>&1
echo "corpus 2, 5 rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/corpus25.log)"; grep -E "^[0-9][0-9]-" $OUT/corpus25.log | grep -v "as expected" | cut -c1-230 | head -12
echo "total $(( $(date +%s) - T0 )) s"
