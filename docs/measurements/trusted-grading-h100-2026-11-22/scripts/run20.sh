#!/usr/bin/env bash
# Sockets read by spinning first: reference against itself, every lab GPU test.
set -o pipefail
export PATH=/usr/local/cuda/bin:$PATH
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
refvsref() {
  lab=$1
  build/labs/lab$lab/lab${lab}_grader --student build/labs/lab$lab/liblab${lab}_reference.so --results /tmp/r.json --output-dir /tmp/o > $OUT/ref-lab$lab-$2.txt 2>&1
  python3 -c "
import json; d=json.load(open('/tmp/r.json'))
keys=('base_us','share_of_call','student_warm_speedup','reference_warm_speedup')
print('lab$lab ref-vs-ref', ' '.join(f\"{c['id']}={c['ratio']:.3f}\" for c in d['checks'] if c.get('ratio')), {k:round(v,3) for c in d['checks'] for k,v in c.get('values',{}).items() if k in keys}, 'not passed:', [c['id'] for c in d['checks'] if c['verdict']!='pass'])"
}
for run in a b c; do for lab in 1 2 3; do refvsref $lab $run; done; done; for lab in 4 5; do refvsref $lab a; done
s=$(date +%s)
timeout 320 ctest --test-dir build -L gpu -R '^lab[1-5]\.' -j1 --output-on-failure > $OUT/ctest.log 2>&1
echo "lab GPU tests ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/ctest.log)"; grep -E "\*\*\*Failed|Failed  |Timeout" $OUT/ctest.log | head
