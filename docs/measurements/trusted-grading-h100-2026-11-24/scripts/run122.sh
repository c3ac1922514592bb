#!/usr/bin/env bash
# Session 18, run 122 (H100): why did run 121's reliability lose one lab 1 step 2 (the grader's clock 3-4x the
# timer's events in every large round)? Hypothesis: another process busy on the CPU the runners are pinned to
# (the last allowed CPU), so the host enqueues the launches slower than the GPU runs them. What runs on the
# machine; lab 1 graded on its reference 3 times as it is, 3 times with a busy loop on the runners' CPU, 2 with
# one on CPU 0; then reliability, lab 1, share of the call per run.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
echo "== loadavg $(cat /proc/loadavg); nproc $(nproc); affinity $(taskset -pc $$ | sed 's/.*: //')"
top -bn1 -w 160 | sed -n 7,20p
G=build/labs/lab1/lab1_grader; R=build/labs/lab1/liblab1_reference.so
last=$(taskset -pc $$ | sed 's/.*: //' | tr ',' '\n' | tail -1 | sed 's/.*-//')
grade() { mkdir -p $OUT/g/$1; timeout 60 $G --student $R --reference $R --results $OUT/g/$1.json --output-dir $OUT/g/$1 > $OUT/g/$1.txt 2>&1; }
for i in 1 2 3; do grade plain$i; done
for i in 1 2 3; do taskset -c $last sh -c 'while :; do :; done' & H=$!; sleep 0.2; grade hog_runner_cpu$i; kill $H; wait $H 2>/dev/null; done
for i in 1 2; do taskset -c 0 sh -c 'while :; do :; done' & H=$!; sleep 0.2; grade hog_cpu0_$i; kill $H; wait $H 2>/dev/null; done
echo "== runner CPU $last"
python3 .devrun/share_rows.py $OUT/g/*.json
s=$(date +%s); timeout 300 make reliability LAB=1 RUNS=50 > $OUT/reliability-lab1.log 2>&1
echo "== reliability lab 1: rc=$? ($(( $(date +%s) - s )) s)"; grep -E "timing failures" $OUT/reliability-lab1.log | head -3
python3 .devrun/share_rows.py build/reliability/lab1/run*.json | tail -12
echo "total $(( $(date +%s) - T0 )) s"
