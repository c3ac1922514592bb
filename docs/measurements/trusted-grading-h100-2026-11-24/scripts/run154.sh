#!/usr/bin/env bash
# Session 22, runs 154-155 (H100): corpus 3 in halves (run 153's whole corpus ran past 590 s with no output):
# bash run154.sh 0 (first half) or 1 (second half); every row's time from grade.py's progress.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
if [ ! -f build/build.ninja ]; then cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }; fi
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
names=$(python3 -c "
import sys; sys.path.insert(0,'grader/corpus')
import corpus
rows = [e.name for e in corpus.corpus('lab3')]
half = len(rows) // 2
print(','.join(rows[:half] if $1 == 0 else ['reference'] + rows[half:]))")
left=$(( 590 - ($(date +%s) - T0) ))
s=$(date +%s); timeout $left python3 -u grader/corpus/corpus.py test --lab lab3 --build build --work /tmp/w3 --only "$names" --jobs 16 > $OUT/corpus3-half$1.txt 2>&1
echo "corpus 3 half $1 rc=$? ($(( $(date +%s) - s )) s): $(grep -c 'as expected' $OUT/corpus3-half$1.txt) as expected"
sed -n '/^submission/,$p' $OUT/corpus3-half$1.txt | grep -v "as expected\|^submission" | cut -c1-220 | head -12
tail -5 $OUT/corpus3-half$1.txt | cut -c1-200
python3 - <<'PY'
import json, glob
rows = []
for path in glob.glob('/tmp/w3/results/**/outcome.json', recursive=True):
    o = json.load(open(path)); rows.append((o.get('run_seconds') or 0, o['student'][:70], o['status']))
for r in sorted(rows, key=lambda r: -float(r[0] or 0))[:8]: print('slowest', r)
PY
echo "total $(( $(date +%s) - T0 )) s"
