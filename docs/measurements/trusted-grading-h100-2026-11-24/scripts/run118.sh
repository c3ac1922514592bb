#!/usr/bin/env bash
# Session 17, run 118 (H100): the tree of run 117 with two corpus rows updated; corpus 3 whole (rounds 27
# and 28 included), then lab 3's and lab 5's GPU tests.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
s=$(date +%s); timeout 470 ctest --test-dir build -R "grader\.corpus_lab3\$" --output-on-failure > $OUT/corpus3.log 2>&1
echo "corpus 3 rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/corpus3.log)"; grep -E "^[0-9][0-9]-" $OUT/corpus3.log | grep -v "as expected" | cut -c1-230 | head -12
python3 - <<'PY'
import json, glob
for f in sorted(glob.glob('build/corpus/corpus_lab3/results/students/*round2[78]*/outcome.json')):
    o = json.load(open(f)); bad = [c for c in o['checks'] if c['verdict'] != 'pass']
    print(o['student'][:70], o['status'])
    for c in bad: print('   ', c['id'], c['verdict'], c.get('ratio'), (c.get('detail') or '')[:160])
PY
left=$(( 590 - ($(date +%s) - T0) ))
if [ $left -gt 60 ]; then
  s=$(date +%s); timeout $left ctest --test-dir build -L gpu -R '^lab[35]\.' -j1 --output-on-failure > $OUT/ctest-labs35.log 2>&1
  echo "lab 3 and 5 GPU tests rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/ctest-labs35.log)"; grep -E "\*\*\*Failed|Failed  |Timeout" $OUT/ctest-labs35.log | head
fi
echo "total $(( $(date +%s) - T0 )) s"
