#!/usr/bin/env bash
# Session 12: the runner's launch watch (CUPTI) on the GPU: lab GPU tests of labs 3-5 (new mutants:
# lab4 tiled_launches_naive_kernel, lab5 shared_x_launches_plain_kernel), then corpora 4 and 5.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
left() { echo $(( 585 - ($(date +%s) - T0) )); }
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
grep -i "cupti" $OUT/configure.log
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"; ldd build/labs/lab4/lab4_runner | grep -i cupti
s=$(date +%s); timeout 260 ctest --test-dir build -L gpu -R "^lab[345]\." -j1 --output-on-failure > $OUT/ctest-labs3-5.log 2>&1
echo "labs 3-5 gpu tests rc=$? ($(( $(date +%s) - s )) s)"; grep -E "tests passed|Failed|\*\*\*|not watched" $OUT/ctest-labs3-5.log | head -12
for t in lab4.mutant_tiled_launches_naive_kernel lab5.mutant_shared_x_launches_plain_kernel; do
  python3 -c "import json,sys;r=json.load(open('build/test-results/$t/results.json'));[print('$t',c['id'],c['verdict'],c.get('detail','')[:230]) for c in r['checks'] if c['id'] in ('step2.correct','step3.correct')]" 2>&1 | head -3; done
for lab in 5 4; do
  l=$(left); [ $l -lt 40 ] && break
  s=$(date +%s); timeout $(( l - 5 )) ctest --test-dir build -R "grader\.corpus_lab${lab}\$" -V > $OUT/corpus$lab.log 2>&1
  echo "corpus $lab rc=$? ($(( $(date +%s) - s )) s)"; grep -E "expected" $OUT/corpus$lab.log | grep -v "as expected" | cut -c1-170 | head -12
done
grep -h "not watched" build/corpus/*/students/*/*.log 2>/dev/null | head -3
