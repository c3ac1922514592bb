#!/usr/bin/env bash
# Session 18, run 125 (H100): the order shake also holds streams the build made in earlier calls (CUPTI's
# resource callbacks), as long as the legacy stream. Corpus 2 whole (red team 28's zeroing stream of its own
# must now lose step3.columns); every corpus entry of labs 1, 3, 4 and 5 that makes streams of its own or
# was judged on streams; lab 2's GPU tests.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
s=$(date +%s); timeout 200 ctest --test-dir build -R "grader\.corpus_lab2\$" --output-on-failure > $OUT/corpus2.log 2>&1
echo "corpus 2 rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/corpus2.log)"; grep -E "^[0-9][0-9]-" $OUT/corpus2.log | grep -v "as expected" | cut -c1-230 | head -12
sub() {  # lab, names
  local s=$(date +%s); timeout 150 python3 grader/corpus/corpus.py test --lab $1 --build build --work /tmp/s$1 --only "$2" --jobs 16 > $OUT/subset-$1.txt 2>&1
  echo "== $1 subset rc=$? ($(( $(date +%s) - s )) s): $(grep -c 'as expected' $OUT/subset-$1.txt) as expected"; sed -n '/^submission/,$p' $OUT/subset-$1.txt | grep -v "as expected" | cut -c1-200 | head -8
}
sub lab1 "reference,slow_on_own_stream,slow_on_legacy_stream,out_of_bounds,red_team_01-mitm_fake_pings_slow_kernel,red_team_02-sigcont_timer_freeze_escape,red_team_02b-control_no_sigcont_timer,red_team_05-freeze_escape_hopper,red_team_06-fair_timer_syncs_first,red_team_round18_02-trick_vector_add_waits_for_its_stream,red_team_round18_08-fair_fork_join_side_stream_per_launch_events,red_team_round3_03-host_clock_timer,red_team_round6_03-trick_l2_persist_disables_cache_check,red_team_round27_06-fair_stream_query_probe_reverse_read_occupancy_each_call"
sub lab3 "reference,red_team_round21_01-trick_double_kernel_launched_after_the_watch_window,red_team_round28_01-subtle_float_horner_on_the_default_stream_after_a_countdown_on_stream,red_team_round28_02-subtle_double_horner_on_the_default_stream_after_a_countdown_on_stream"
sub lab4 "reference,red_team_11-mitm_fake_pings_all_naive,red_team_round21_01-trick_tiled_launch_captured_never_run,red_team_round21_02-fair_tiled_kernel_launched_as_a_cuda_graph"
sub lab5 "reference,red_team_21-mitm_fake_pings_thread_per_row,red_team_round21_01-fair_shared_x_kernel_launched_as_a_cuda_graph,red_team_round28_01-trick_shared_x_only_while_the_stream_is_held"
left=$(( 590 - ($(date +%s) - T0) ))
if [ $left -gt 40 ]; then
  s=$(date +%s); timeout $left ctest --test-dir build -L gpu -R '^lab2\.' -j1 --output-on-failure > $OUT/ctest-lab2.log 2>&1
  echo "lab 2 GPU tests rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/ctest-lab2.log)"; grep -E "\*\*\*Failed|Failed  |Timeout" $OUT/ctest-lab2.log | head
fi
echo "total $(( $(date +%s) - T0 )) s"
