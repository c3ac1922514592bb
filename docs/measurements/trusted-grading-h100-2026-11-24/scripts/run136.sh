#!/usr/bin/env bash
# Session 19, run 136 (H100): corpus 3 whole with the polynomial checked past 2^31; red team 32
# through grade.py.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
for lab in lab1 lab2 lab3; do
  s=$(date +%s); timeout 90 python3 grader/grade.py --lab $lab --submissions grader/corpus/red-team/round32/$lab --out /tmp/rt32-$lab --kit build/grading/$lab/kit.json > $OUT/rt32-$lab.txt 2>&1
  echo "== red team 32 $lab rc=$? ($(( $(date +%s) - s )) s)"; cut -d, -f1-3 /tmp/rt32-$lab/gradebook.csv 2>/dev/null | head -6
  cp /tmp/rt32-$lab/gradebook.csv $OUT/rt32-$lab-gradebook.csv 2>/dev/null
done
left=$(( 590 - ($(date +%s) - T0) ))
s=$(date +%s); timeout $left ctest --test-dir build -R "grader\.corpus_lab3\$" --output-on-failure > $OUT/corpus3.log 2>&1
echo "corpus 3 rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/corpus3.log)"; sed -n '/^submission/,$p' $OUT/corpus3.log | grep -v "as expected\|^submission" | grep -E "^[0-9]" | cut -c1-230 | head -12; grep -c "/ 100" $OUT/corpus3.log
echo "total $(( $(date +%s) - T0 )) s"
