#!/usr/bin/env bash
# Session 14, run 95 (H100): red team 22's files and this session's changes (lab 3's judged kernels and
# scaled mixed rows, lab 4's dynamic shared memory read from the launches, the launch record's new field):
# labs 3 and 4's GPU tests, then every lab's round 22 entries with the reference, through grade.py.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
s=$(date +%s); timeout 200 ctest --test-dir build -L gpu -R '^lab[34]\.' -j1 --output-on-failure > $OUT/ctest-labs34.log 2>&1
echo "lab 3 and 4 GPU tests rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/ctest-labs34.log)"; grep -E "\*\*\*Failed|Failed  |Timeout" $OUT/ctest-labs34.log | head
for lab in 1 2 3 4 5; do
  only=$(python3 -c "
import sys; sys.path.insert(0,'grader/corpus'); sys.argv=['x']
import corpus
print(','.join(['reference'] + [e.name for e in corpus.red_team_entries('lab$lab') if 'round22' in e.name]))")
  s=$(date +%s)
  timeout 150 python3 grader/corpus/corpus.py test --lab lab$lab --build build --work /tmp/r22-$lab --only "$only" --jobs 16 > $OUT/round22-lab$lab.txt 2>&1
  echo "== lab$lab round 22: rc=$? ($(( $(date +%s) - s )) s)"; sed -n '/^submission/,$p' $OUT/round22-lab$lab.txt | grep -v "^submission" | cut -c1-200
  for f in /tmp/r22-$lab/results/students/*/outcome.json; do
    python3 -c "import json,sys; o=json.load(open(sys.argv[1])); print('  ', o['student'][:60], o['status'], o.get('total')); [print('     ', c['id'], c['verdict'], (c.get('detail') or '')[:260]) for c in o['checks'] if c['verdict'] not in ('pass',)]" $f
  done
done
echo "total $(( $(date +%s) - T0 )) s"
