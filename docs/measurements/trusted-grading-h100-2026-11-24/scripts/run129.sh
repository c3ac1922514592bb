#!/usr/bin/env bash
# Session 19, run 129 (H100): the order shake per stream (all streams, ranks reversed call by call,
# CUDA_DEVICE_MAX_CONNECTIONS=32), lab 1 step 2's kernels of one launch and span across streams,
# lab 3's polynomial past 2^31. Lab 1 GPU tests; corpus 1 whole; touched rows of corpora 2, 3, 4.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
s=$(date +%s); timeout 100 ctest --test-dir build -L gpu -R '^lab1\.' -j1 --output-on-failure > $OUT/ctest-lab1.log 2>&1
echo "lab 1 GPU tests rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/ctest-lab1.log)"; grep -E "\*\*\*Failed|Failed  |Timeout" $OUT/ctest-lab1.log | head
sub() {  # lab, names
  local s=$(date +%s); timeout 150 python3 grader/corpus/corpus.py test --lab $1 --build build --work /tmp/s$1 --only "$2" --jobs 16 > $OUT/subset-$1.txt 2>&1
  echo "== $1 subset rc=$? ($(( $(date +%s) - s )) s): $(grep -c 'as expected' $OUT/subset-$1.txt) as expected"; sed -n '/^submission/,$p' $OUT/subset-$1.txt | grep -v "as expected" | cut -c1-200 | head -8
}
names() { python3 -c "
import sys; sys.path.insert(0,'grader/corpus'); sys.argv=['x']
import corpus
print(','.join(['reference'] + [e.name for e in corpus.red_team_entries('$1') if any(r in e.name for r in '$2'.split())]))"; }
sub lab2 "$(names lab2 'round31 round28 round22 round30')"
sub lab3 "$(names lab3 'round30 round28')"
sub lab4 "$(names lab4 'round30_03')"
s=$(date +%s); timeout 300 ctest --test-dir build -R "grader\.corpus_lab1\$" --output-on-failure > $OUT/corpus1.log 2>&1
echo "corpus 1 rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/corpus1.log)"; sed -n '/^submission/,$p' $OUT/corpus1.log | grep -v "as expected" | cut -c1-230 | head -12
echo "total $(( $(date +%s) - T0 )) s"
