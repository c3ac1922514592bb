#!/usr/bin/env bash
# Run 34: where a grading run's time goes (MEMLAB_TRACE_PHASES), lab 1 and lab 4 on the reference; how many processes /proc lists.
export PATH=/usr/local/cuda/bin:$PATH
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "processes in /proc: $(ls /proc | grep -c '^[0-9]')"
for lab in 1 4; do
  s=$(date +%s%N)
  MEMLAB_TRACE_PHASES=1 build/labs/lab$lab/lab${lab}_grader --student build/labs/lab$lab/liblab${lab}_reference.so --results /tmp/r$lab.json --output-dir /tmp/o > $OUT/lab$lab.txt 2>&1
  echo "lab$lab: $(( ($(date +%s%N) - s) / 1000000 )) ms"; grep -E "^phase|\.\.\. " $OUT/lab$lab.txt
done
