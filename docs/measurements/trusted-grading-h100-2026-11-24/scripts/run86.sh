#!/usr/bin/env bash
# Session 13, run 86 (H100): the first GPU run of 6e37a22 (read_every_sum, errors_of_kind): every lab's GPU
# tests and corpus 2; and where a lab 1 row's time goes now (finer phases: before_main, gpu_probe, checks).
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
for i in 1 2; do
  s=$(date +%s%N)
  MEMLAB_TRACE_PHASES=1 build/labs/lab1/lab1_grader --student build/labs/lab1/liblab1_reference.so --results /tmp/r1.json --output-dir /tmp/o > $OUT/lab1-trace-$i.txt 2>&1
  echo "lab1 traced run $i: $(( ($(date +%s%N) - s) / 1000000 )) ms"
done
grep -E "^phase" $OUT/lab1-trace-2.txt
s=$(date +%s); timeout 330 ctest --test-dir build -L gpu -R '^lab' -j1 --output-on-failure > $OUT/ctest-labs.log 2>&1
echo "lab GPU tests rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/ctest-labs.log)"; grep -E "\*\*\*Failed|Failed  |Timeout" $OUT/ctest-labs.log | head
s=$(date +%s); timeout 100 ctest --test-dir build -R 'grader\.corpus_lab2$' --output-on-failure > $OUT/corpus2.log 2>&1
echo "corpus 2 rc=$? ($(( $(date +%s) - s )) s)"; grep -E "Test #|expected" $OUT/corpus2.log | grep -v "as expected" | head
python3 .devrun/results_table.py build/test-results step2.accuracy 2>/dev/null | head -12
echo "total $(( $(date +%s) - T0 )) s"
