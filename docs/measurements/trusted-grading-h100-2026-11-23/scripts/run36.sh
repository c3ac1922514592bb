#!/usr/bin/env bash
# Run 36: lab 1's phases with the grader's own parts traced; one reference row through grade.py, timed.
export PATH=/usr/local/cuda/bin:$PATH
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
s=$(date +%s%N)
MEMLAB_TRACE_PHASES=1 build/labs/lab1/lab1_grader --student build/labs/lab1/liblab1_reference.so --results /tmp/r1.json --output-dir /tmp/o 2>&1 | python3 -c "
import sys,time
t0=time.time()
for l in sys.stdin:
  if 'phase' in l or '... ' in l or 'Grading' in l: print('%6.3f %s' % (time.time()-t0, l.rstrip()[:150]))"
echo "lab1: $(( ($(date +%s%N) - s) / 1000000 )) ms"
mkdir -p /tmp/one/alice; cp solutions/lab1*/vector_add.cu /tmp/one/alice/ 2>/dev/null || cp $(ls solutions/*1*/*.cu | head -1) /tmp/one/alice/vector_add.cu
s=$(date +%s%N)
python3 grader/grade.py --lab lab1 --submissions /tmp/one --out /tmp/one-out --build build > $OUT/grade-one.txt 2>&1
echo "grade.py, one reference row: rc=$? $(( ($(date +%s%N) - s) / 1000000 )) ms"; grep -E "\[1/1\]|compiled" $OUT/grade-one.txt
s=$(date +%s%N)
python3 grader/grade.py --lab lab1 --submissions /tmp/one --out /tmp/one-out2 --build build > $OUT/grade-one2.txt 2>&1
echo "again: rc=$? $(( ($(date +%s%N) - s) / 1000000 )) ms"; grep -E "\[1/1\]|compiled" $OUT/grade-one2.txt
