#!/usr/bin/env bash
# Session 21, run 150 (H100): red team 35's eight files (labs 2-5) graded with the reference, every check shown.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
if [ ! -f build/build.ninja ]; then cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }; fi
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
sub() {  # lab, rounds, seconds
  local names=$(python3 -c "
import sys; sys.path.insert(0,'grader/corpus'); sys.argv=['x']
import corpus
print(','.join(['reference'] + [e.name for e in corpus.corpus('$1') if any(r in e.name for r in '$2'.split())]))")
  local s=$(date +%s); timeout $3 python3 grader/corpus/corpus.py test --lab $1 --build build --work /tmp/w-$1 --only "$names" --jobs 16 > $OUT/subset-$1.txt 2>&1
  echo "== $1 subset rc=$? ($(( $(date +%s) - s )) s): $(grep -c 'as expected' $OUT/subset-$1.txt) as expected"; sed -n '/^submission/,$p' $OUT/subset-$1.txt | grep -v "as expected\|^submission" | cut -c1-200 | head -6
}
sub lab2 round35 60
sub lab3 round35 60
sub lab4 round35 90
sub lab5 round35 70
python3 - <<'PY'
import json, glob, os
for path in sorted(glob.glob('/tmp/w-lab*/results/**/outcome.json', recursive=True)):
    if 'round35' not in path: continue
    o = json.load(open(path)); print(path.split('/')[2], o['student'][:60], o['status'])
    for c in o.get('checks', []):
        print('   ', c.get('id'), c.get('verdict'), (c.get('measured') or '')[:110], '' if c.get('verdict') == 'pass' else (c.get('detail') or '')[-160:].replace('\n', ' | '))
PY
echo "total $(( $(date +%s) - T0 )) s"
