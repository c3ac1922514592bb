#!/usr/bin/env bash
# Session 15, run 103 (H100): as run 102 (red team 24's files; every launched kernel's fixed shared memory read in
# lab 4's step 4), with module images identified: a load before the first call of an image that is no registered fatbin.
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
print(','.join(['reference'] + [e.name for e in corpus.red_team_entries('lab4') if any(r in e.name for r in ('round22', 'round23', 'round24', 'round13_03'))]))")
s=$(date +%s); timeout 160 python3 grader/corpus/corpus.py test --lab lab4 --build build --work /tmp/c4 --only "$only4" --jobs 16 > $OUT/corpus4-touched.txt 2>&1
echo "== corpus 4, entries touched: rc=$? ($(( $(date +%s) - s )) s)"; sed -n '/^submission/,$p' $OUT/corpus4-touched.txt | cut -c1-200
for f in /tmp/c4/results/students/*/outcome.json; do
  python3 -c "import json,sys; o=json.load(open(sys.argv[1])); print('  ', o['student'][:62], o['status']); [print('     ', c['id'], c['verdict'], (c.get('detail') or '')[:230]) for c in o['checks'] if c['verdict'] not in ('pass',)]" $f
done
echo "runner lines in corpus 4's logs:"; grep -rhoE "runner \(pid [0-9]+\).*" /tmp/c4/results 2>/dev/null | sed 's/pid [0-9]*/pid N/' | sort | uniq -c | head
s=$(date +%s); timeout 150 python3 grader/corpus/corpus.py test --lab lab4 --build build --work /tmp/s4 --only reference --sanitize --jobs 16 > $OUT/corpus4-sanitize.txt 2>&1
echo "== corpus 4 --sanitize, reference: rc=$? ($(( $(date +%s) - s )) s)"; sed -n '/^submission/,$p' $OUT/corpus4-sanitize.txt | cut -c1-200
grep -rhoE "runner \(pid [0-9]+\).*" /tmp/s4 2>/dev/null | sed 's/pid [0-9]*/pid N/' | sort | uniq -c | head
unset MEMLAB_TRACE_MODULES
left=$(( 590 - ($(date +%s) - T0) ))
s=$(date +%s); timeout $left ctest --test-dir build -L gpu -R '^lab4\.' -j1 --output-on-failure > $OUT/ctest-lab4.log 2>&1
echo "lab 4 GPU tests rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/ctest-lab4.log)"; grep -E "\*\*\*Failed|Failed  |Timeout" $OUT/ctest-lab4.log | head
echo "total $(( $(date +%s) - T0 )) s"
