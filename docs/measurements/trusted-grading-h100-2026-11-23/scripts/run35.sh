#!/usr/bin/env bash
# Run 35: the freezer reads the tree from /proc/PID/task/TID/children; runners end side by side. Phases of lab 1 and 4 again, the freezer's host tests here, and 100 lab 1 submissions: 4 copies of the 25 entries of the 222 s measurement.
export PATH=/usr/local/cuda/bin:$PATH
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
ls /proc/self/task/*/children >/dev/null 2>&1 && echo "kernel lists children: yes" || echo "kernel lists children: no"
ctest --test-dir build -L host -R "stopped|children|continued|thread of" 2>&1 | grep -E "tests passed|Failed"
for lab in 1 4; do
  s=$(date +%s%N)
  MEMLAB_TRACE_PHASES=1 build/labs/lab$lab/lab${lab}_grader --student build/labs/lab$lab/liblab${lab}_reference.so --results /tmp/r$lab.json --output-dir /tmp/o > $OUT/lab$lab.txt 2>&1
  echo "lab$lab: $(( ($(date +%s%N) - s) / 1000000 )) ms"; grep -E "^phase" $OUT/lab$lab.txt | grep -E "freeze|end_runner|measure_base|call_lab|start_student"
done
only=reference,thread_per_element,one_block,misses_last_element,skeleton,compile_error,crash,reference_after_crash,sticky_error,reference_after_sticky_error,forbidden_thrust,forbidden_cublas,forbidden_file,forbidden_header,mentions_in_comments,host_loop,reference_after_host_loop,gpu_hang,reference_after_gpu_hang,huge_output,reference_after_huge_output,exits_early,all_gpu_memory,reference_after_all_gpu_memory,out_of_bounds
s=$(date +%s)
timeout 400 python3 grader/corpus/corpus.py test --lab lab1 --build build --work /tmp/c100 --copies 4 --only "$only" --jobs 16 > $OUT/grade-100.txt 2>&1
echo "100 lab1 rc=$? ($(( $(date +%s) - s )) s) $(grep -c 'as expected' $OUT/grade-100.txt) as expected"; sed -n '/^submission/,$p' $OUT/grade-100.txt | grep -v "as expected" | head -8; grep -E "compiled|rows" $OUT/grade-100.txt | tail -3
sed -n '/^\s*\[/p' $OUT/grade-100.txt | awk '{print $NF, $0}' | sort -t'(' -k2 -rn | head -0
