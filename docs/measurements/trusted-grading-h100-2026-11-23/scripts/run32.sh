#!/usr/bin/env bash
# Run 32: lab 1's whole corpus (45 rows), make lab1 after an edit, 100 lab 1 submissions (4 copies of the 25 entries that are not red-team files or their reference companions).
set -o pipefail
export PATH=/usr/local/cuda/bin:$PATH
mkdir -p $OUT/r
f=$(ls labs/lab1*/vector_add.cu)
for i in 1 2 3; do touch $f; s=$(date +%s%N); make lab1 > $OUT/r/make-lab1-$i.txt 2>&1; rc=$?; echo "make lab1 after touch: rc=$rc $(( ($(date +%s%N) - s) / 1000000 )) ms"; done
s=$(date +%s)
timeout 280 python3 grader/corpus/corpus.py test --lab lab1 --build build --work /tmp/c-lab1 > $OUT/r/corpus-lab1.txt 2>&1
echo "corpus lab1 rc=$? ($(( $(date +%s) - s )) s) $(grep -c 'as expected' $OUT/r/corpus-lab1.txt) as expected"; sed -n '/^submission/,$p' $OUT/r/corpus-lab1.txt | grep -v "as expected" | head -12
cp /tmp/c-lab1/results/gradebook.csv $OUT/r/gradebook-lab1.csv 2>/dev/null
only=$(cd grader/corpus && python3 -c "
import corpus
names=[e.name for e in corpus.corpus('lab1') if 'red_team' not in e.name]
print(','.join(names[:25]))")
echo "100 = 4 x: $only" | cut -c1-400
s=$(date +%s)
timeout 270 python3 grader/corpus/corpus.py test --lab lab1 --build build --work /tmp/c100 --copies 4 --only "$only" --jobs 16 > $OUT/r/grade-100.txt 2>&1
echo "100 lab1 rc=$? ($(( $(date +%s) - s )) s) $(grep -c 'as expected' $OUT/r/grade-100.txt) as expected"; sed -n '/^submission/,$p' $OUT/r/grade-100.txt | grep -v "as expected" | head -8; tail -2 $OUT/r/grade-100.txt
tar czf $OUT/run32.tgz -C $OUT r
