#!/usr/bin/env bash
# Session 22, run 156 (H100): corpus 2 whole with the tall matrices, then make reliability for lab 2 (50 runs of the
# reference as the student; the tall checks add time to each run).
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
if [ ! -f build/build.ninja ]; then cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }; fi
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
s=$(date +%s); timeout 250 python3 -u grader/corpus/corpus.py test --lab lab2 --build build --work /tmp/w2 --jobs 16 > $OUT/corpus2.txt 2>&1
echo "corpus 2 rc=$? ($(( $(date +%s) - s )) s): $(grep -c 'as expected' $OUT/corpus2.txt) as expected"
sed -n '/^submission/,$p' $OUT/corpus2.txt | grep -v "as expected\|^submission" | cut -c1-220 | head -12
grep "reference passes here" $OUT/corpus2.txt
bash .devrun/rel.sh 2 $(( 590 - ($(date +%s) - T0) ))
echo "total $(( $(date +%s) - T0 )) s"
