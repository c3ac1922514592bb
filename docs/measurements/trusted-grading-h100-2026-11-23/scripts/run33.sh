#!/usr/bin/env bash
# Run 33: where lab 1's 5 s per reference row goes: the grader on the reference by steps, every output line stamped with its time.
export PATH=/usr/local/cuda/bin:$PATH
mkdir -p $OUT/r
for steps in 1 2 3 4; do
  s=$(date +%s%N)
  build/labs/lab1/lab1_grader --student build/labs/lab1/liblab1_reference.so --results $OUT/r/ref-$steps.json --output-dir /tmp/o --steps $steps 2>&1 | python3 -c "
import sys,time
t0=time.time()
for l in sys.stdin: print('%6.3f %s' % (time.time()-t0, l.rstrip()[:150]))" > $OUT/r/steps-$steps.txt
  echo "steps $steps: $(( ($(date +%s%N) - s) / 1000000 )) ms"
done
s=$(date +%s%N); build/labs/lab1/lab1_grader --student build/labs/lab1/liblab1_reference.so --results /tmp/x.json --output-dir /tmp/o --list-tests > /dev/null 2>&1; echo "list-tests: $(( ($(date +%s%N) - s) / 1000000 )) ms"
cat $OUT/r/steps-4.txt | head -60
