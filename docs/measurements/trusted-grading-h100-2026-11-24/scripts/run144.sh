#!/usr/bin/env bash
# Session 20, run 144 (H100): red team 34's fixes (the record hold in every other pair of shaken calls, from
# any thread, at most 64 a call; lab 3's double probe without the student's runner). Subsets of corpora 2,
# 5, 1 and 3 around rounds 31-34.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
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
sub lab2 "round34 round32 round31 round28 round22" 110
sub lab5 "round34 round30 round28" 90
sub lab1 "round34 round33 round29_01" 80
sub lab3 "round33 round32" 70
python3 - <<'PY'
import json, glob, os
for path in sorted(glob.glob('/tmp/w-lab3/results/**/outcome.json', recursive=True)):
    for c in json.load(open(path)).get('checks', []):
        if c.get('id') == 'step3.correct':
            print(os.path.basename(os.path.dirname(path))[:50], c.get('verdict'), (c.get('measured') or '')[:90], (c.get('detail') or '')[-150:].replace('\n', ' | '))
PY
echo "total $(( $(date +%s) - T0 )) s"
