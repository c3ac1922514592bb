#!/usr/bin/env bash
# Session 15, run 106 (H100): as run 105, with fewer modules than fatbins counted as the build's doing (red team
# 25): make lab4 with the reference and with run 93's constructor, corpus 4's touched entries with rounds 24 and
# 25, lab 4's GPU tests, then the GPU tests of labs 1, 2, 3 and 5.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
export MEMLAB_TRACE_MODULES=1
cp labs/lab4_matmul/matmul.cu /tmp/skeleton4.cu
cp solutions/lab4_matmul/matmul.cu labs/lab4_matmul/matmul.cu
s=$(date +%s); make lab4 > $OUT/lab4-reference.txt 2>&1; echo "== make lab4, reference: rc=$? ($(( $(date +%s) - s )) s)"
grep -ohE "runner \(pid [0-9]+\).*" $OUT/lab4-reference.txt | sed 's/pid [0-9]*/pid N/' | sort | uniq -c; grep -E "steps done" $OUT/lab4-reference.txt
cat solutions/lab4_matmul/matmul.cu .devrun/ctor_module_tail.cu > labs/lab4_matmul/matmul.cu
s=$(date +%s); make lab4 > $OUT/lab4-ctor.txt 2>&1; echo "== make lab4, reference + constructor loading a module: rc=$? ($(( $(date +%s) - s )) s)"
grep -ohE "runner \(pid [0-9]+\).*" $OUT/lab4-ctor.txt | sed 's/pid [0-9]*/pid N/' | sort | uniq -c; grep -E "steps done" $OUT/lab4-ctor.txt
cp /tmp/skeleton4.cu labs/lab4_matmul/matmul.cu
only4=$(python3 -c "
import sys; sys.path.insert(0,'grader/corpus'); sys.argv=['x']
import corpus
print(','.join(['reference'] + [e.name for e in corpus.red_team_entries('lab4') if any(r in e.name for r in ('round23', 'round24', 'round25', 'round13_03'))]))")
s=$(date +%s); timeout 160 python3 grader/corpus/corpus.py test --lab lab4 --build build --work /tmp/c4 --only "$only4" --jobs 16 > $OUT/corpus4-touched.txt 2>&1
echo "== corpus 4, entries touched: rc=$? ($(( $(date +%s) - s )) s)"; sed -n '/^submission/,$p' $OUT/corpus4-touched.txt | cut -c1-200
for f in /tmp/c4/results/students/*round2[45]*/outcome.json; do
  python3 -c "import json,sys; o=json.load(open(sys.argv[1])); print('  ', o['student'][:62], o['status']); [print('     ', c['id'], c['verdict'], (c.get('detail') or '')[:200]) for c in o['checks'] if c['verdict'] not in ('pass', 'blocked')]" $f
done
echo "runner lines in corpus 4's logs:"; grep -rhoE "runner \(pid [0-9]+\).*" /tmp/c4/results 2>/dev/null | sed 's/pid [0-9]*/pid N/' | sort | uniq -c | head
unset MEMLAB_TRACE_MODULES
s=$(date +%s); timeout 120 ctest --test-dir build -L gpu -R '^lab4\.' -j1 --output-on-failure > $OUT/ctest-lab4.log 2>&1
echo "lab 4 GPU tests rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/ctest-lab4.log)"; grep -E "\*\*\*Failed|Failed  |Timeout" $OUT/ctest-lab4.log | head
left=$(( 590 - ($(date +%s) - T0) ))
s=$(date +%s); timeout $left ctest --test-dir build -L gpu -R '^lab[1235]\.' -j1 --output-on-failure > $OUT/ctest-labs1235.log 2>&1
echo "labs 1, 2, 3, 5 GPU tests rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/ctest-labs1235.log)"; grep -E "\*\*\*Failed|Failed  |Timeout" $OUT/ctest-labs1235.log | head
echo "total $(( $(date +%s) - T0 )) s"
