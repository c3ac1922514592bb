#!/usr/bin/env bash
# Session 11 (H100): red team 18's fixes to lab 1 step 2 (c checked at L2/2, vector_add that waits, warm
# launches within 1.25x either way of the runner's, launch 1 against the rest at large footprints; fork a
# name, not a call): lab 1 GPU tests, corpus 1 with round 18, reliability of lab 1.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
left() { echo $(( 470 - ($(date +%s) - T0) )); }
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
s=$(date +%s); timeout 120 ctest --test-dir build -L gpu -R '^lab1\.' -V > $OUT/ctest-lab1.log 2>&1
echo "lab 1 GPU tests rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/ctest-lab1.log)"
grep -E "\*\*\*Failed|Failed  " $OUT/ctest-lab1.log | head
s=$(date +%s); timeout 300 ctest --test-dir build -R 'grader\.corpus_lab1$' -V > $OUT/corpus1.log 2>&1
echo "corpus 1 rc=$? ($(( $(date +%s) - s )) s)"; grep -E "expected" $OUT/corpus1.log | grep -v "as expected" | cut -c1-170 | head -12
grep -E "round18" $OUT/corpus1.log | grep -E "as expected|expected" | sed 's/^[0-9]*: //' | cut -c1-120
python3 .devrun/step2_table.py build/corpus/corpus_lab1 > $OUT/corpus1-step2.txt; grep -E "round18|reference |thread_per|red_team_06|round6_0[12]" $OUT/corpus1-step2.txt | cut -c1-200
for d in build/corpus/corpus_lab1/results/students/*round18*; do python3 -c "
import json,sys; o=json.load(open('$d/outcome.json'))
for c in o.get('checks') or []:
  if c.get('id')=='step2.timer' and c.get('verdict')!='pass': print(o['student'][:50], '|', (c.get('detail') or '')[-260:].replace(chr(10),' '))
" 2>/dev/null; done
l=$(left); [ $l -gt 60 ] && timeout $l python3 scripts/grader_reliability.py --build build --lab 1 --runs 12 --deadline $((l-10)) --output build/rel > $OUT/rel.txt 2>&1
grep -E "^## |runs;" build/rel/summary.md; cp build/rel/summary.md $OUT/reliability-summary.md 2>/dev/null
python3 .devrun/step2_table.py build/rel > $OUT/rel-step2.txt; sort -t'|' -k2 $OUT/rel-step2.txt | sed -n '1p;$p' | cut -c40-220
