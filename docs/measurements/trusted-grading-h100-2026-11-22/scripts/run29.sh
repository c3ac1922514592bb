#!/usr/bin/env bash
# Lab 1 after the step 2 limits were set from run 16: lab 1's GPU tests, its corpus in the sandbox with every row's step 2 figures.
set -o pipefail
export PATH=/usr/local/cuda/bin:$PATH
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
s=$(date +%s)
timeout 120 ctest --test-dir build -L gpu -R '^lab1\.' -j1 --output-on-failure > $OUT/ctest-lab1.log 2>&1
echo "lab 1 GPU tests ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/ctest-lab1.log)"; grep -E "\*\*\*Failed|Failed  |Timeout" $OUT/ctest-lab1.log | head
grep -h "launches 2-5" $OUT/ctest-lab1.log | cut -c1-200 | head -12
s=$(date +%s)
timeout 200 python3 grader/corpus/corpus.py test --lab lab1 --build build --work /tmp/corpus1 > $OUT/corpus1.txt 2>&1
echo "corpus lab1 rc=$? ($(( $(date +%s) - s )) s)"; sed -n '/^submission/,$p' $OUT/corpus1.txt | grep -v "as expected" | head -20
python3 - <<'PY'
import json, glob, os
for f in sorted(glob.glob('/tmp/corpus1/results/students/*/outcome.json')):
    d = json.load(open(f))
    for c in d.get('checks', []):
        if c['id'] in ('step2.timer', 'step1.speed') and c.get('values'):
            v = c['values']
            print(os.path.basename(os.path.dirname(f))[:34].ljust(34), c['id'], c['verdict'], round(c.get('ratio') or 0, 3), {k: round(x, 3) for k, x in v.items() if 'speedup' in k or 'share' in k})
PY
