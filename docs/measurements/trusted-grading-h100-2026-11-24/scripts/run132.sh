#!/usr/bin/env bash
# Session 19, run 132 (H100): CUDA_DEVICE_MAX_CONNECTIONS no longer raised (run 131: 32 queues made
# every runner's start 1.4 s longer and its calls 3.6x slower). Round 31 again on 8 queues; corpus 1
# whole; lab 1 reliability.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
sub() {  # lab, names
  local s=$(date +%s); timeout 150 python3 grader/corpus/corpus.py test --lab $1 --build build --work /tmp/s$1 --only "$2" --jobs 16 > $OUT/subset-$1.txt 2>&1
  echo "== $1 subset rc=$? ($(( $(date +%s) - s )) s): $(grep -c 'as expected' $OUT/subset-$1.txt) as expected"; sed -n '/^submission/,$p' $OUT/subset-$1.txt | grep -v "as expected" | cut -c1-200 | head -8
}
names() { python3 -c "
import sys; sys.path.insert(0,'grader/corpus'); sys.argv=['x']
import corpus
print(','.join(['reference'] + [e.name for e in corpus.red_team_entries('$1') if any(r in e.name for r in '$2'.split())]))"; }
sub lab2 "$(names lab2 'round31 round28_01')"
s=$(date +%s); timeout 300 ctest --test-dir build -R "grader\.corpus_lab1\$" --output-on-failure > $OUT/corpus1.log 2>&1
echo "corpus 1 rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/corpus1.log)"; sed -n '/^submission/,$p' $OUT/corpus1.log | grep -v "as expected" | cut -c1-230 | head -12
left=$(( 585 - ($(date +%s) - T0) ))
if [ $left -gt 30 ]; then
  s=$(date +%s); timeout $left python3 scripts/grader_reliability.py --build build --runs 20 --lab 1 --output $OUT/rel1 > $OUT/rel1.log 2>&1
  echo "== reliability lab 1 rc=$? ($(( $(date +%s) - s )) s)"; grep -E "per run|^\| [0-9]" $OUT/rel1.log | head -5
fi
echo "total $(( $(date +%s) - T0 )) s"
