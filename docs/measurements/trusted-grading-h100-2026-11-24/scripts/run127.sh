#!/usr/bin/env bash
# Session 18, run 127 (H100): the session's final grader. Corpora 2 and 5 whole (new shapes, round 30's
# rows); red team 29 through corpus 1; red team 30's and other touched rows of corpora 3 and 4; then the
# GPU tests of labs 2 to 5 as time allows.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
s=$(date +%s); timeout 240 ctest --test-dir build -R "grader\.corpus_lab[25]\$" --output-on-failure > $OUT/corpus25.log 2>&1
echo "corpus 2, 5 rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/corpus25.log)"; grep -E "^[0-9][0-9]-" $OUT/corpus25.log | grep -v "as expected" | cut -c1-230 | head -12
sub() {  # lab, names
  local s=$(date +%s); timeout 120 python3 grader/corpus/corpus.py test --lab $1 --build build --work /tmp/s$1 --only "$2" --jobs 16 > $OUT/subset-$1.txt 2>&1
  echo "== $1 subset rc=$? ($(( $(date +%s) - s )) s): $(grep -c 'as expected' $OUT/subset-$1.txt) as expected"; sed -n '/^submission/,$p' $OUT/subset-$1.txt | grep -v "as expected" | cut -c1-200 | head -8
}
names() { python3 -c "
import sys; sys.path.insert(0,'grader/corpus'); sys.argv=['x']
import corpus
print(','.join(['reference'] + [e.name for e in corpus.red_team_entries('$1') if any(r in e.name for r in '$2'.split())]))"; }
sub lab1 "$(names lab1 'round29 round18_08 round26_02 round27_06')"
sub lab3 "$(names lab3 'round30 round28 round27')"
sub lab4 "$(names lab4 'round30 round27_02')"
left=$(( 590 - ($(date +%s) - T0) ))
if [ $left -gt 40 ]; then
  s=$(date +%s); timeout $left ctest --test-dir build -L gpu -R '^lab[2345]\.' -j1 --output-on-failure > $OUT/ctest-labs2345.log 2>&1
  echo "labs 2-5 GPU tests rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/ctest-labs2345.log)"; grep -E "\*\*\*Failed|Failed  |Timeout" $OUT/ctest-labs2345.log | head
fi
echo "total $(( $(date +%s) - T0 )) s"
