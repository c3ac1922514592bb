#!/usr/bin/env bash
# Session 22, run 159 (H100; not run in session 22): lab 2's column sums also checked on 2 x 67108897 and 2 x 67108896 (grading::kWideForColumns):
# lab 2's GPU tests, lab 3's reference (the shared check_sums_large), and lab 2's column-sum files of rounds
# 6, 22, 35, 36 and 37 with every check of their rows.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
if [ ! -f build/build.ninja ]; then cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }; fi
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
s=$(date +%s); timeout 90 ctest --test-dir build -L gpu -R "^lab2\\.|^lab3\\.reference" -j1 --output-on-failure > $OUT/ctest.log 2>&1
echo "GPU tests rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/ctest.log)"
grep -E "Test +#.*(sec|Failed|Timeout)" $OUT/ctest.log | sed -E 's/ +/ /g' | cut -c1-110
names=$(python3 -c "
import sys; sys.path.insert(0,'grader/corpus')
import corpus
print(','.join(['reference'] + [e.name for e in corpus.corpus('lab2') if any(r in e.name for r in ('round37', 'round36', 'round35', 'round6/04', 'round22/01'))]))")
s=$(date +%s); timeout 150 python3 -u grader/corpus/corpus.py test --lab lab2 --build build --work /tmp/w2 --only "$names" --jobs 16 > $OUT/subset-lab2.txt 2>&1
echo "== lab2 subset rc=$? ($(( $(date +%s) - s )) s): $(grep -c 'as expected' $OUT/subset-lab2.txt) as expected"
sed -n '/^submission/,$p' $OUT/subset-lab2.txt | grep -v "^submission" | cut -c1-160
python3 - <<'PY'
import json, glob
for path in sorted(glob.glob('/tmp/w2/results/**/outcome.json', recursive=True)):
    o = json.load(open(path))
    for c in o.get('checks', []):
        if c.get('id', '').startswith('step3.columns') or c.get('verdict') != 'pass':
            print(o['student'][:40], c.get('id'), c.get('verdict'), (c.get('measured') or '')[:120], '' if c.get('verdict') == 'pass' else (c.get('detail') or '')[-150:].replace('\n', ' | '))
PY
echo "total $(( $(date +%s) - T0 )) s"
