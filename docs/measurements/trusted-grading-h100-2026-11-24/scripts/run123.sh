#!/usr/bin/env bash
# Session 18, run 123 (H100): HEAD 74f40af (lab 1 step 2's large rounds measured again once before failing).
# Lab 1's reference graded once with the phase trace (where a row's time goes today); corpus 1 whole;
# then lab 1's GPU tests (neither ran on session 17's final span rule).
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
s=$(date +%s%N)
MEMLAB_TRACE_PHASES=1 build/labs/lab1/lab1_grader --student build/labs/lab1/liblab1_reference.so --results /tmp/r1.json --output-dir /tmp/o1 > $OUT/lab1-trace.txt 2>&1
echo "lab1 reference traced: rc=$? $(( ($(date +%s%N) - s) / 1000000 )) ms"; grep -E "^phase|\.\.\. " $OUT/lab1-trace.txt | sed 's/  */ /g' | cut -c1-110
s=$(date +%s); timeout 330 ctest --test-dir build -R "grader\.corpus_lab1\$" --output-on-failure > $OUT/corpus1.log 2>&1
echo "corpus 1 rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/corpus1.log)"; grep -E "^[0-9][0-9]-" $OUT/corpus1.log | grep -v "as expected" | cut -c1-230 | head -12
grep -E "as expected" $OUT/corpus1.log | wc -l
left=$(( 590 - ($(date +%s) - T0) ))
if [ $left -gt 60 ]; then
  s=$(date +%s); timeout $left ctest --test-dir build -L gpu -R '^lab1\.' -j1 --output-on-failure > $OUT/ctest-lab1.log 2>&1
  echo "lab 1 GPU tests rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/ctest-lab1.log)"; grep -E "\*\*\*Failed|Failed  |Timeout" $OUT/ctest-lab1.log | head
fi
echo "total $(( $(date +%s) - T0 )) s"
