#!/usr/bin/env bash
# Session 5, run 44: HEAD c14b201 (runners in cgroups). Phases of lab 1, every lab GPU test, red team round 3 graded in the sandbox, reliability 6 runs per lab (continued by run 45).
export PATH=/usr/local/cuda/bin:$PATH
s=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - s )) s"
s=$(date +%s%N)
MEMLAB_TRACE_PHASES=1 build/labs/lab1/lab1_grader --student build/labs/lab1/liblab1_reference.so --results /tmp/r1.json --output-dir /tmp/o > $OUT/lab1-phases.txt 2>&1
echo "lab1 rc=$? $(( ($(date +%s%N) - s) / 1000000 )) ms"; grep -E "^phase|Runners held" $OUT/lab1-phases.txt | head -30
ls /sys/fs/cgroup$(grep '^0::' /proc/self/cgroup | cut -d: -f3) | grep memlab; echo "(no memlab cgroups left above this line)"
s=$(date +%s)
timeout 240 ctest --test-dir build -L gpu -R '^lab[1-5]\.' -j1 --output-on-failure > $OUT/ctest.log 2>&1
echo "lab GPU tests ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/ctest.log)"; grep -E "\*\*\*Failed|Failed  |Timeout" $OUT/ctest.log | head
s=$(date +%s)
timeout 100 python3 grader/grade.py --lab lab1 --submissions grader/corpus/red-team/round3/lab1 --out /tmp/rt3 --build build > $OUT/round3.txt 2>&1
echo "round3 rc=$? ($(( $(date +%s) - s )) s)"; cut -d, -f1-9 /tmp/rt3/gradebook.csv 2>/dev/null; grep -iE "sandbox|WARNING|held" $OUT/round3.txt | head -5
grep -h "Runners held" /tmp/rt3/*/*/results.json /tmp/rt3/*/results.json 2>/dev/null | head -2
s=$(date +%s)
timeout 230 python3 scripts/grader_reliability.py --build build --runs 6 --deadline 220 --output build/rel > $OUT/reliability.txt 2>&1
echo "reliability rc=$? ($(( $(date +%s) - s )) s)"; grep -E "^## |timing failures|deadline" build/rel/summary.md | head -12
cp build/rel/summary.md $OUT/rel-summary.md
