#!/usr/bin/env bash
# Session 11 (H100): step 2's figures for host-clock timers beside fair event timers, 4 copies each
# (every figure measured before step 2's verdict since this run's tree).
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
ONLY="reference,red_team_round17_04-fair_empty_asm_compiler_barrier_in_host_timer,red_team_round3_03-host_clock_timer,red_team_06-fair_timer_syncs_first"
s=$(date +%s); timeout 300 python3 grader/corpus/corpus.py test --lab lab1 --build build --work build/c74 --copies 4 --only "$ONLY" > $OUT/corpus1-timers.log 2>&1
echo "corpus rc=$? ($(( $(date +%s) - s )) s)"
python3 .devrun/step2_table.py build/c74 | sort -k1.4 | tee $OUT/timers-step2.txt
s=$(date +%s); timeout 60 ctest --test-dir build -R 'lab1.mutant_waits_after_every_launch' -V > $OUT/ctest-waits.log 2>&1; echo "waits rc=$?"
grep -E "L2/2 launches" $OUT/ctest-waits.log | cut -c1-200
