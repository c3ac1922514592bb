#!/usr/bin/env bash
# Session 12: the launch watch after red team 21 (other threads' launches and modules loaded once calls
# are made fail the call; graphs made by capture count as unnamed; lab 3's compensated sums asked first):
# every lab's GPU tests, then corpus subsets of labs 3-5 with round 21's files.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
left() { echo $(( 585 - ($(date +%s) - T0) )); }
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
s=$(date +%s); timeout 300 ctest --test-dir build -L gpu -R "^lab[1-5]\." -j1 --output-on-failure > $OUT/ctest-labs1-5.log 2>&1
echo "lab gpu tests rc=$? ($(( $(date +%s) - s )) s)"; grep -E "tests passed|Failed|\*\*\*|modules|thread of the code" $OUT/ctest-labs1-5.log | head -12
for l in 3 4 5; do
  f=.devrun/only$l.txt; [ $l = 3 ] && f=.devrun/only3b.txt
  t=$(left); [ $t -lt 30 ] && break
  s=$(date +%s); timeout $(( t - 5 )) python3 grader/corpus/corpus.py test --lab lab$l --build build --work build/cc$l --only "$(cat $f)" > $OUT/corpus$l-subset.log 2>&1
  echo "corpus $l subset rc=$? ($(( $(date +%s) - s )) s)"; grep -E "expected" $OUT/corpus$l-subset.log | cut -c1-150
done
for c in step2.accuracy; do python3 .devrun/speed_table.py build/cc3 $c | cut -c1-56,100-330; done
python3 .devrun/speed_table.py build/cc4 step2.correct | cut -c1-56,100-330
python3 .devrun/speed_table.py build/cc5 step3.correct | cut -c1-56,100-330
