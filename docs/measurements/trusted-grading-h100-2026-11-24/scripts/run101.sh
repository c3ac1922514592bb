#!/usr/bin/env bash
# Session 15, run 101 (H100): lab 4's step 4 reads each launched kernel's static shared memory; a module a
# constructor loads counts as code loaded at run time, and such modules fail every later call. Do fair runners
# still pass (make lab4, lab 4's GPU tests, corpus 4's touched entries, corpus 3's round 21), does the
# constructor's module now fail, and what do runners count under compute-sanitizer (grade.py --sanitize)?
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
export MEMLAB_TRACE_MODULES=1
cp labs/lab4_matmul/matmul.cu /tmp/skeleton4.cu
cp solutions/lab4_matmul/matmul.cu labs/lab4_matmul/matmul.cu
s=$(date +%s); make lab4 > $OUT/lab4-reference.txt 2>&1; echo "== make lab4, reference: rc=$? ($(( $(date +%s) - s )) s)"
grep -E "runner \(pid" $OUT/lab4-reference.txt | sed 's/pid [0-9]*/pid N/' | sort | uniq -c; grep -E "steps done|FAIL" $OUT/lab4-reference.txt | head -5
cat solutions/lab4_matmul/matmul.cu .devrun/ctor_module_tail.cu > labs/lab4_matmul/matmul.cu
s=$(date +%s); make lab4 > $OUT/lab4-ctor.txt 2>&1; echo "== make lab4, reference + constructor loading a module: rc=$? ($(( $(date +%s) - s )) s)"
grep -E "runner \(pid" $OUT/lab4-ctor.txt | sed 's/pid [0-9]*/pid N/' | sort | uniq -c; grep -E "steps done|GPU modules" $OUT/lab4-ctor.txt | cut -c1-220 | head -4
cp /tmp/skeleton4.cu labs/lab4_matmul/matmul.cu
s=$(date +%s); timeout 200 python3 grader/corpus/corpus.py test --lab lab3 --build build --work /tmp/s3 --only reference,red_team_round22_02-fair_step1_template_ceil_double_fails_step2 --sanitize --jobs 16 > $OUT/corpus3-sanitize.txt 2>&1
echo "== corpus 3 --sanitize (reference, a fair file): rc=$? ($(( $(date +%s) - s )) s)"; sed -n '/^submission/,$p' $OUT/corpus3-sanitize.txt | cut -c1-200
grep -rhE "runner \(pid" /tmp/s3 2>/dev/null | sed 's/pid [0-9]*/pid N/' | sort | uniq -c | head
unset MEMLAB_TRACE_MODULES
s=$(date +%s); timeout 110 ctest --test-dir build -L gpu -R '^lab4\.' -j1 --output-on-failure > $OUT/ctest-lab4.log 2>&1
echo "lab 4 GPU tests rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/ctest-lab4.log)"; grep -E "\*\*\*Failed|Failed  |Timeout" $OUT/ctest-lab4.log | head
only4=$(python3 -c "
import sys; sys.path.insert(0,'grader/corpus'); sys.argv=['x']
import corpus
print(','.join(['reference'] + [e.name for e in corpus.red_team_entries('lab4') if any(r in e.name for r in ('round21', 'round22', 'round23', 'round13_03', 'round6_09'))]))")
s=$(date +%s); timeout 150 python3 grader/corpus/corpus.py test --lab lab4 --build build --work /tmp/c4 --only "$only4" --jobs 16 > $OUT/corpus4-touched.txt 2>&1
echo "== corpus 4, entries touched: rc=$? ($(( $(date +%s) - s )) s)"; sed -n '/^submission/,$p' $OUT/corpus4-touched.txt | cut -c1-200
for f in /tmp/c4/results/students/*/outcome.json; do
  python3 -c "import json,sys; o=json.load(open(sys.argv[1])); print('  ', o['student'][:62], o['status']); [print('     ', c['id'], c['verdict'], (c.get('detail') or '')[:220]) for c in o['checks'] if c['verdict'] not in ('pass',)]" $f
done
only3=$(python3 -c "
import sys; sys.path.insert(0,'grader/corpus'); sys.argv=['x']
import corpus
print(','.join(['reference'] + [e.name for e in corpus.red_team_entries('lab3') if 'round21' in e.name or 'round16_07' in e.name]))")
left=$(( 590 - ($(date +%s) - T0) ))
s=$(date +%s); timeout $left python3 grader/corpus/corpus.py test --lab lab3 --build build --work /tmp/c3 --only "$only3" --jobs 16 > $OUT/corpus3-round21.txt 2>&1
echo "== corpus 3, round 21 and 16/07: rc=$? ($(( $(date +%s) - s )) s)"; sed -n '/^submission/,$p' $OUT/corpus3-round21.txt | cut -c1-200
echo "total $(( $(date +%s) - T0 )) s"
