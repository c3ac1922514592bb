#!/usr/bin/env bash
# Session 17, run 116 (H100): the order shake with kernels that wait (run 115's host functions let the
# legacy stream go early: a process's host functions ran one after another). Corpus 2 whole; lab 2's GPU
# tests; lab 2's reference traced.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
for lab in 2; do
  s=$(date +%s%N)
  MEMLAB_TRACE_PHASES=1 build/labs/lab$lab/lab${lab}_grader --student build/labs/lab$lab/liblab${lab}_reference.so --results /tmp/r$lab.json --output-dir /tmp/o$lab > $OUT/lab$lab-trace.txt 2>&1
  echo "lab$lab reference traced: rc=$? $(( ($(date +%s%N) - s) / 1000000 )) ms; $(grep -E '^phase call_lab' $OUT/lab$lab-trace.txt | sed 's/  */ /g')"
done
for c in 2; do
  s=$(date +%s); timeout 150 ctest --test-dir build -R "grader\.corpus_lab$c\$" --output-on-failure > $OUT/corpus$c.log 2>&1
  echo "corpus $c rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/corpus$c.log)"; grep -E "^[0-9][0-9]-" $OUT/corpus$c.log | grep -v "as expected" | cut -c1-220 | head -12
done
python3 - <<'PY'
import json, glob
for f in sorted(glob.glob('build/corpus/corpus_lab2/results/students/*default_stream*/outcome.json') + glob.glob('build/corpus/corpus_lab2/results/students/*legacy_default*/outcome.json')):
    o = json.load(open(f)); print(o['student'], o['status'])
    for c in o['checks']:
        if c['verdict'] != 'pass': print('   ', c['id'], c['verdict'], (c.get('detail') or '')[:200])
PY
s=$(date +%s); timeout 150 ctest --test-dir build -L gpu -R '^lab2\.' -j1 --output-on-failure > $OUT/ctest-lab2.log 2>&1
echo "lab 2 GPU tests rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/ctest-lab2.log)"; grep -E "\*\*\*Failed|Failed  |Timeout" $OUT/ctest-lab2.log | head
echo "total $(( $(date +%s) - T0 )) s"
