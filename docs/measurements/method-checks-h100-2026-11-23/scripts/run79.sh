#!/usr/bin/env bash
# Session 12: lab 3's new step2.speed (compensated sums timed, every run checked to 8 u) on the GPU:
# lab 3's GPU tests (the host-computed mutant among them), then make reliability for lab 3.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
left() { echo $(( 585 - ($(date +%s) - T0) )); }
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
s=$(date +%s); timeout 200 ctest --test-dir build -L gpu -R "^lab3\." -j1 --output-on-failure > $OUT/ctest-lab3.log 2>&1
echo "lab3 gpu tests rc=$? ($(( $(date +%s) - s )) s)"; grep -E "tests passed|Failed|\*\*\*" $OUT/ctest-lab3.log | head -12
python3 .devrun/results_table.py build/test-results step2.speed
l=$(left); [ $l -gt 60 ] && timeout $l python3 scripts/grader_reliability.py --build build --lab 3 --runs 20 --deadline $((l-10)) --output build/rel > $OUT/rel.txt 2>&1
grep -E "^## |runs;|step2" build/rel/summary.md; cp build/rel/summary.md $OUT/reliability-summary.md 2>/dev/null
