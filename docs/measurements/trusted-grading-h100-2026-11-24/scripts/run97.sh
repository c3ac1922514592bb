#!/usr/bin/env bash
# Session 14, run 97 (H100): after red team 23's fixes (every call of lab 3's compensated sums judged, the
# tensor-map reduction rule back in the launched kernels' check, lab 4's dynamic bytes counted only from
# kernels that stage data in shared memory): corpus 3 whole, lab 4's GPU tests, and corpus 4's entries
# this session touched with the reference.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
only4=$(python3 -c "
import sys; sys.path.insert(0,'grader/corpus'); sys.argv=['x']
import corpus
print(','.join(['reference'] + [e.name for e in corpus.red_team_entries('lab4') if any(r in e.name for r in ('round22', 'round23', 'round6_10', 'round13_03'))]))")
s=$(date +%s); timeout 150 python3 grader/corpus/corpus.py test --lab lab4 --build build --work /tmp/c4 --only "$only4" --jobs 16 > $OUT/corpus4-touched.txt 2>&1
echo "== corpus 4, entries touched: rc=$? ($(( $(date +%s) - s )) s)"; sed -n '/^submission/,$p' $OUT/corpus4-touched.txt | cut -c1-200
for f in /tmp/c4/results/students/*/outcome.json; do
  python3 -c "import json,sys; o=json.load(open(sys.argv[1])); print('  ', o['student'][:62], o['status']); [print('     ', c['id'], c['verdict'], (c.get('detail') or '')[:200]) for c in o['checks'] if c['verdict'] not in ('pass',)]" $f
done
s=$(date +%s); timeout 100 ctest --test-dir build -L gpu -R '^lab4\.' -j1 --output-on-failure > $OUT/ctest-lab4.log 2>&1
echo "lab 4 GPU tests rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/ctest-lab4.log)"; grep -E "\*\*\*Failed|Failed  |Timeout" $OUT/ctest-lab4.log | head
left=$(( 590 - ($(date +%s) - T0) ))
s=$(date +%s); timeout $left ctest --test-dir build -R "grader\.corpus_lab3\$" --output-on-failure > $OUT/corpus3.log 2>&1
echo "corpus 3 rc=$? ($(( $(date +%s) - s )) s)"; grep -E "^[0-9][0-9]-" $OUT/corpus3.log | grep -v "as expected" | cut -c1-220 | head -12
echo "total $(( $(date +%s) - T0 )) s"
