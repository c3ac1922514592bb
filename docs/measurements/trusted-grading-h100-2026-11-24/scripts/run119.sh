#!/usr/bin/env bash
# Session 17, run 119 (H100): the tree of run 118; corpus 1 whole (round 27
# included), then the GPU tests of labs 1, 2 and 4.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
s=$(date +%s); timeout 470 ctest --test-dir build -R "grader\.corpus_lab1\$" --output-on-failure > $OUT/corpus1.log 2>&1
echo "corpus 1 rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/corpus1.log)"; grep -E "^[0-9][0-9]-" $OUT/corpus1.log | grep -v "as expected" | cut -c1-230 | head -12
python3 - <<'PY'
import json, glob
for f in sorted(glob.glob('build/corpus/corpus_lab1/results/students/*round2[78]*/outcome.json')):
    o = json.load(open(f)); bad = [c for c in o['checks'] if c['verdict'] != 'pass']
    print(o['student'][:70], o['status'])
    for c in bad: print('   ', c['id'], c['verdict'], c.get('ratio'), (c.get('detail') or '')[:160])
PY
left=$(( 590 - ($(date +%s) - T0) ))
if [ $left -gt 60 ]; then
  s=$(date +%s); timeout $left ctest --test-dir build -L gpu -R '^lab[124]\.' -j1 --output-on-failure > $OUT/ctest-labs124.log 2>&1
  echo "lab 1, 2 and 4 GPU tests rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/ctest-labs124.log)"; grep -E "\*\*\*Failed|Failed  |Timeout" $OUT/ctest-labs124.log | head
fi
echo "total $(( $(date +%s) - T0 )) s"
