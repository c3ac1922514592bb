#!/usr/bin/env bash
# Session 17, run 121 (H100): lab 1 step 2's kernel spans count, per launch, only the stream where it ran
# most of its kernel time (run 120 kept the stream the timer was given, which failed red team 18's fork-join
# timer). Corpus 1's step 2 subset with out_of_bounds and rounds 27; then reliability for lab 1, 20 runs.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
only1=$(python3 -c "
import sys; sys.path.insert(0,'grader/corpus'); sys.argv=['x']
import corpus
names = ['reference', 'thread_per_element', 'skips_repeated_calls', 'slow_on_own_stream', 'out_of_bounds', 'slow_on_legacy_stream']
names += [e.name for e in corpus.red_team_entries('lab1') if any(r in e.name for r in ('round18', 'round19', 'round6_0', 'round22', 'round3_03', 'red_team_06', 'round17_04', 'round26', 'round27'))]
print(','.join(names))")
s=$(date +%s); timeout 330 python3 grader/corpus/corpus.py test --lab lab1 --build build --work /tmp/c1 --only "$only1" --jobs 16 > $OUT/corpus1-step2.txt 2>&1
echo "== corpus 1, step 2 subset: rc=$? ($(( $(date +%s) - s )) s)"; sed -n '/^submission/,$p' $OUT/corpus1-step2.txt | grep -v "as expected" | cut -c1-160; grep -c "as expected" $OUT/corpus1-step2.txt
python3 .devrun/step2_table.py /tmp/c1 > $OUT/corpus1-step2-table.txt; grep -E "out_of_bounds|round18_08|00-reference" $OUT/corpus1-step2-table.txt | cut -c1-200
left=$(( 585 - ($(date +%s) - T0) ))
[ $left -gt 90 ] && { s=$(date +%s); timeout $left make reliability LAB=1 RUNS=20 > $OUT/reliability-lab1.log 2>&1; echo "== reliability lab 1: rc=$? ($(( $(date +%s) - s )) s)"; grep -iE "timing failures|failures" $OUT/reliability-lab1.log | head -5; }
echo "total $(( $(date +%s) - T0 )) s"
