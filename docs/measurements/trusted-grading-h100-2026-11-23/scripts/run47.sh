#!/usr/bin/env bash
# Session 6, run 47 (planned): verify HEAD after session 5's unverified changes (round 5 sandbox words: tmpfs over cgroupfs and --disable-userns under CUDA; cgroup fixes; grader splits; Api move). Every lab GPU test, then the five corpora in the sandbox.
export PATH=/usr/local/cuda/bin:$PATH
s=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - s )) s"
build/labs/lab1/lab1_grader --student build/labs/lab1/liblab1_reference.so --results /tmp/r1.json --output-dir /tmp/o > $OUT/lab1.txt 2>&1; echo "lab1 rc=$?"; grep -E "Runners held" $OUT/lab1.txt
s=$(date +%s)
timeout 240 ctest --test-dir build -L gpu -R '^lab[1-5]\.' -j1 --output-on-failure > $OUT/ctest.log 2>&1
echo "lab GPU tests ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/ctest.log)"; grep -E "\*\*\*Failed|Failed  |Timeout" $OUT/ctest.log | head
s=$(date +%s)
timeout 300 ctest --test-dir build -R 'grader\.corpus_lab[2345]$' -j1 --output-on-failure > $OUT/corpus.log 2>&1
echo "corpora 2-5 rc=$? ($(( $(date +%s) - s )) s)"; grep -E "tests passed|Passed|Failed|\*\*\*" $OUT/corpus.log | head -8
