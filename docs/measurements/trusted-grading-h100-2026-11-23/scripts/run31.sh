#!/usr/bin/env bash
# Run 31: corpora of labs 1-5 in the sandbox (red-team entries included), make lab1 after an edit.
set -o pipefail
export PATH=/usr/local/cuda/bin:$PATH
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
mkdir -p $OUT/r
for lab in lab1 lab2 lab3 lab4 lab5; do
  s=$(date +%s)
  timeout 200 python3 grader/corpus/corpus.py test --lab $lab --build build --work /tmp/c-$lab > $OUT/r/corpus-$lab.txt 2>&1
  echo "corpus $lab rc=$? ($(( $(date +%s) - s )) s) $(grep -c 'as expected' $OUT/r/corpus-$lab.txt) as expected"; sed -n '/^submission/,$p' $OUT/r/corpus-$lab.txt | grep -v "as expected" | head -12
  cp /tmp/c-$lab/results/gradebook.csv $OUT/r/gradebook-$lab.csv 2>/dev/null
done
f=$(ls labs/lab1*/vector_add.cu)
for i in 1 2 3; do touch $f; s=$(date +%s.%N); make lab1 > $OUT/r/make-lab1-$i.txt 2>&1; echo "make lab1 after touch: rc=$? $(echo "$(date +%s.%N) - $s" | bc) s"; done
tail -5 $OUT/r/make-lab1-3.txt
tar czf $OUT/run31.tgz -C $OUT r
