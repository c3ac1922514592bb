#!/usr/bin/env bash
# Session 15, run 104 (H100): the runner's module identity check in every lab: the GPU tests of labs 1, 2, 3
# and 5, corpus 3's files that load a kernel at run time (expected 35), and corpus 5 whole.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
s=$(date +%s); timeout 260 ctest --test-dir build -L gpu -R '^lab[1235]\.' -j1 --output-on-failure > $OUT/ctest-labs1235.log 2>&1
echo "labs 1, 2, 3, 5 GPU tests rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/ctest-labs1235.log)"; grep -E "\*\*\*Failed|Failed  |Timeout" $OUT/ctest-labs1235.log | head
only3=$(python3 -c "
import sys; sys.path.insert(0,'grader/corpus'); sys.argv=['x']
import corpus
print(','.join(['reference'] + [e.name for e in corpus.red_team_entries('lab3') if 'round21' in e.name or 'round16_07' in e.name]))")
s=$(date +%s); timeout 100 python3 grader/corpus/corpus.py test --lab lab3 --build build --work /tmp/c3 --only "$only3" --jobs 16 > $OUT/corpus3-run-time-kernels.txt 2>&1
echo "== corpus 3, round 21 and 16/07: rc=$? ($(( $(date +%s) - s )) s)"; sed -n '/^submission/,$p' $OUT/corpus3-run-time-kernels.txt | cut -c1-200
left=$(( 590 - ($(date +%s) - T0) ))
s=$(date +%s); timeout $left ctest --test-dir build -R "grader\.corpus_lab5\$" --output-on-failure > $OUT/corpus5.log 2>&1
echo "corpus 5 rc=$? ($(( $(date +%s) - s )) s)"; grep -E "^[0-9][0-9]-" $OUT/corpus5.log | grep -v "as expected" | cut -c1-220 | head -12
echo "total $(( $(date +%s) - T0 )) s"
