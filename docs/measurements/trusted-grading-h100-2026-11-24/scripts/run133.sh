#!/usr/bin/env bash
# Session 19, run 133 (H100): lab 1 step 2's span counts gaps up to 5 us inside a launch (run 132:
# red team 29's fair four-chunk file lost step 2). Step 2's rows of corpus 1 with their messages; lab
# 1 GPU tests.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
names=$(python3 -c "
import sys; sys.path.insert(0,'grader/corpus'); sys.argv=['x']
import corpus
print(','.join(['reference','out_of_bounds'] + [e.name for e in corpus.corpus('lab1') if any(r in e.name for r in 'round29 round18 round19 round26 round27 fair_timer'.split())]))")
s=$(date +%s); timeout 200 python3 grader/corpus/corpus.py test --lab lab1 --build build --work /tmp/s1 --only "$names" --jobs 16 > $OUT/subset-lab1.txt 2>&1
echo "== lab1 subset rc=$? ($(( $(date +%s) - s )) s): $(grep -c 'as expected' $OUT/subset-lab1.txt) as expected"; sed -n '/^submission/,$p' $OUT/subset-lab1.txt | grep -v "as expected" | cut -c1-200 | head -8
python3 - <<'PY' > $OUT/step2-messages.txt
import json, glob, os
for path in sorted(glob.glob('/tmp/s1/results/**/outcome.json', recursive=True)):
    o = json.load(open(path))
    for c in o.get('checks', []):
        if c.get('id') == 'step2.timer':
            v = c.get('values', {})
            print(os.path.basename(os.path.dirname(path))[:60], c.get('verdict'), 'excess', round(v.get('their_excess_us', -1), 2), 'ref', round(v.get('reference_excess_us', -1), 2), 'short', round(v.get('launch_excess_shortfall_us', -1), 2), (c.get('message') or c.get('failure') or '')[:300].replace('\n', ' | '))
PY
grep -E "round29|round18_08|out_of|reference" $OUT/step2-messages.txt | cut -c1-330
s=$(date +%s); timeout 120 ctest --test-dir build -L gpu -R '^lab1\.' -j1 --output-on-failure > $OUT/ctest-lab1.log 2>&1
echo "lab 1 GPU tests rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/ctest-lab1.log)"; grep -E "\*\*\*Failed|Failed  |Timeout" $OUT/ctest-lab1.log | head
echo "total $(( $(date +%s) - T0 )) s"
