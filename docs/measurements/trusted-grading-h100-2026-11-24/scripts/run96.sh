#!/usr/bin/env bash
# Session 14, run 96 (H100): whole corpora of the labs this session changed (lab 3: judged kernels, scaled
# mixed rows; lab 4: dynamic shared memory read from the launches; lab 2: the new launch record), each row
# against what corpus.py expects.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
for lab in 3 4 2; do
  left=$(( 585 - ($(date +%s) - T0) ))
  [ $left -lt 60 ] && { echo "corpus $lab: not run, $left s left"; continue; }
  s=$(date +%s); timeout $left ctest --test-dir build -R "grader\.corpus_lab$lab\$" --output-on-failure > $OUT/corpus$lab.log 2>&1
  echo "corpus $lab rc=$? ($(( $(date +%s) - s )) s): $(grep -c 'as expected' $OUT/corpus$lab.log) rows as expected"
  grep -E "^[0-9][0-9]-" $OUT/corpus$lab.log | grep -v "as expected" | cut -c1-220 | head -12
done
echo "total $(( $(date +%s) - T0 )) s"
