#!/usr/bin/env bash
# Session 20, run 141 (H100): red team 33 fixes (a call's time no longer than the runner's events; the gain from the
# direct calls too; launches matched by kernel name); double polynomial past 2^32. Step 2 rows, lab 3 subset,
# lab 1 GPU tests, lab 1 reliability.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
names=$(python3 -c "
import sys; sys.path.insert(0,'grader/corpus'); sys.argv=['x']
import corpus
print(','.join(['reference','out_of_bounds'] + [e.name for e in corpus.corpus('lab1') if any(r in e.name for r in 'round33 round32 round29 round18 round19 round26 round27 fair_timer'.split())]))")
s=$(date +%s); timeout 230 python3 grader/corpus/corpus.py test --lab lab1 --build build --work /tmp/s1 --only "$names" --jobs 16 > $OUT/subset-lab1.txt 2>&1
echo "== lab1 subset rc=$? ($(( $(date +%s) - s )) s): $(grep -c 'as expected' $OUT/subset-lab1.txt) as expected"; sed -n '/^submission/,$p' $OUT/subset-lab1.txt | grep -v "as expected" | cut -c1-200 | head -10
python3 .devrun/step2_values.py /tmp/s1 > $OUT/step2-values.txt
cut -c1-260 $OUT/step2-values.txt
names3=$(python3 -c "
import sys; sys.path.insert(0,'grader/corpus'); sys.argv=['x']
import corpus
print(','.join(['reference'] + [e.name for e in corpus.corpus('lab3') if any(r in e.name for r in 'round33 round32 round30 round7'.split())]))")
s=$(date +%s); timeout 200 python3 grader/corpus/corpus.py test --lab lab3 --build build --work /tmp/s3 --only "$names3" --jobs 16 > $OUT/subset-lab3.txt 2>&1
echo "== lab3 subset rc=$? ($(( $(date +%s) - s )) s): $(grep -c 'as expected' $OUT/subset-lab3.txt) as expected"; sed -n '/^submission/,$p' $OUT/subset-lab3.txt | grep -v "as expected" | cut -c1-200 | head -10
grep -h '"step3.correct"' -A3 /tmp/s3/results/students/*/outcome.json 2>/dev/null | head -0
python3 - <<'PY'
import json, glob, os
for path in sorted(glob.glob('/tmp/s3/results/**/outcome.json', recursive=True)):
    o = json.load(open(path))
    for c in o.get('checks', []):
        if c.get('id') == 'step3.correct':
            print(os.path.basename(os.path.dirname(path))[:55], c.get('verdict'), (c.get('measured') or '')[:90], (c.get('detail') or '')[-200:].replace('\n', ' | '))
PY
s=$(date +%s); timeout 120 ctest --test-dir build -L gpu -R '^lab1\.' -j1 --output-on-failure > $OUT/ctest-lab1.log 2>&1
echo "lab 1 GPU tests rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/ctest-lab1.log)"; grep -E "\*\*\*Failed|Failed  |Timeout" $OUT/ctest-lab1.log | head
left=$(( 585 - ($(date +%s) - T0) ))
if [ $left -gt 60 ]; then
  s=$(date +%s); timeout $left python3 scripts/grader_reliability.py --build build --runs 12 --lab 1 --output $OUT/rel1 > $OUT/rel1.txt 2>&1
  echo "lab 1 reliability rc=$? ($(( $(date +%s) - s )) s)"; tail -6 $OUT/rel1.txt
fi
echo "total $(( $(date +%s) - T0 )) s"
