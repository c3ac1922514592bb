#!/usr/bin/env bash
# Session 13, run 92 (H100): the parallel verification (27bfd7d) against labs 2 and 5's wrong variants:
# their GPU tests and corpus 2; then the student's loop, make lab1 after touching the file, three times.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
s=$(date +%s); timeout 150 ctest --test-dir build -L gpu -R '^lab[25]\.' -j1 --output-on-failure > $OUT/ctest-labs25.log 2>&1
echo "lab 2 and 5 GPU tests rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/ctest-labs25.log)"; grep -E "\*\*\*Failed|Failed  |Timeout" $OUT/ctest-labs25.log | head
s=$(date +%s); timeout 100 ctest --test-dir build -R 'grader\.corpus_lab2$' --output-on-failure > $OUT/corpus2.log 2>&1
echo "corpus 2 rc=$? ($(( $(date +%s) - s )) s)"; grep -E "Test #|expected" $OUT/corpus2.log | grep -v "as expected" | head
f=$(ls labs/lab1*/vector_add.cu)
for i in 1 2 3; do touch $f; s=$(date +%s%N); make lab1 > $OUT/make-lab1-$i.txt 2>&1; rc=$?; echo "make lab1 after touch: rc=$rc $(( ($(date +%s%N) - s) / 1000000 )) ms"; done
tail -4 $OUT/make-lab1-3.txt
echo "total $(( $(date +%s) - T0 )) s"
