#!/usr/bin/env bash
# Session 19, run 131 (H100): why run 130's rows took twice as long. A process's CUDA start and end
# with CUDA_DEVICE_MAX_CONNECTIONS unset, 8 and 32; lab 1's reference graded with the phase trace
# with the runners' connections 8 and 32 (the runner honours a value already set, this run only).
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
nvcc -O2 -o /tmp/ctx .devrun/ctx.cu
for v in unset 8 32 unset 8 32; do
  if [ $v = unset ]; then r=$(/tmp/ctx); else r=$(CUDA_DEVICE_MAX_CONNECTIONS=$v /tmp/ctx); fi; echo "connections $v: $r"
done
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 --target lab1_grader lab1_runner lab1_reference > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
for v in 8 32 8 32; do
  s=$(date +%s%N)
  CUDA_DEVICE_MAX_CONNECTIONS=$v MEMLAB_TRACE_PHASES=1 build/labs/lab1/lab1_grader --student build/labs/lab1/liblab1_reference.so --results /tmp/r$v.json --output-dir /tmp/o$v > $OUT/lab1-trace-$v.txt 2>&1
  echo "lab1 reference, runner connections $v: rc=$? $(( ($(date +%s%N) - s) / 1000000 )) ms"
  grep -E "^phase (start_|end_runner|call_lab|checks|grader_start|gpu_probe|kill_runner)" $OUT/lab1-trace-$v.txt | sed 's/  */ /g' | cut -c1-100
done
echo "total $(( $(date +%s) - T0 )) s"
