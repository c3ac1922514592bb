#!/usr/bin/env bash
# Lab 1's corpus with step 2's cache check at a quarter of the reference's gain: every row's step 2 figures.
set -o pipefail
export PATH=/usr/local/cuda/bin:$PATH
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
s=$(date +%s)
timeout 200 python3 grader/corpus/corpus.py test --lab lab1 --build build --work /tmp/corpus1 > $OUT/corpus1.txt 2>&1
echo "corpus lab1 rc=$? ($(( $(date +%s) - s )) s)"; sed -n '/^submission/,$p' $OUT/corpus1.txt | grep -v "as expected" | head -20
python3 - <<'PY'
import json, glob, os
for f in sorted(glob.glob('/tmp/corpus1/results/students/*/outcome.json')):
    d = json.load(open(f))
    for c in d.get('checks', []):
        if c['id'] == 'step2.timer':
            v = c.get('values', {})
            print(os.path.basename(os.path.dirname(f))[:34].ljust(34), c['verdict'], {k: round(x, 3) for k, x in v.items() if 'speedup' in k or 'share' in k})
PY
