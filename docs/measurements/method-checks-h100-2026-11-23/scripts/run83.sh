#!/usr/bin/env bash
# Session 12: lab 3 step 2 with two kinds of rows (spread, mixed) and the median rule; red team 20's files.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
left() { echo $(( 585 - ($(date +%s) - T0) )); }
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
s=$(date +%s); timeout 150 ctest --test-dir build -L gpu -R "^lab3\." -j1 --output-on-failure > $OUT/ctest-lab3.log 2>&1
echo "lab3 gpu tests rc=$? ($(( $(date +%s) - s )) s)"; grep -E "tests passed|Failed|\*\*\*" $OUT/ctest-lab3.log | head -8
python3 - <<'PY'
import json
r = json.load(open('build/test-results/lab3.reference_passes/results.json'))
for c in r['checks']:
    if c['id'] == 'step2.accuracy':
        print(c.get('note', '')); print(c.get('measured'))
PY
python3 .devrun/results_table.py build/test-results step2.accuracy | cut -c1-60,120-300
s=$(date +%s); timeout $(( $(left) - 80 )) python3 grader/corpus/corpus.py test --lab lab3 --build build --work build/c3 --only "$(cat .devrun/only3.txt)" > $OUT/corpus3-subset.log 2>&1
echo "corpus 3 subset rc=$? ($(( $(date +%s) - s )) s)"; grep -E "expected" $OUT/corpus3-subset.log | cut -c1-150
python3 .devrun/speed_table.py build/c3 step2.accuracy | cut -c1-60,100-330 > $OUT/c3-accuracy.txt; cat $OUT/c3-accuracy.txt
python3 .devrun/speed_table.py build/c3 step2.speed | cut -c1-120 > $OUT/c3-speed.txt; cat $OUT/c3-speed.txt
l=$(left); [ $l -gt 50 ] && timeout $l python3 scripts/grader_reliability.py --build build --lab 3 --runs 8 --deadline $((l-15)) --output build/rel > $OUT/rel.txt 2>&1
grep -E "runs;|step2" build/rel/summary.md; cp build/rel/summary.md $OUT/reliability-summary.md 2>/dev/null
