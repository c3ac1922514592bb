#!/usr/bin/env bash
# Session 21, run 146 (H100): throughput on HEAD. Lab 1's reference graded once with the phase trace, then
# the 100 lab 1 submissions of runs 37, 58, 87 and 94 (25 entries, four copies each, 16 at a time).
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
if [ ! -f build/build.ninja ]; then cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }; fi
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
s=$(date +%s%N)
MEMLAB_TRACE_PHASES=1 build/labs/lab1/lab1_grader --student build/labs/lab1/liblab1_reference.so --results /tmp/r1.json --output-dir /tmp/o1 > $OUT/lab1-trace.txt 2>&1
echo "lab1 reference traced: rc=$? $(( ($(date +%s%N) - s) / 1000000 )) ms"; grep -E '^phase' $OUT/lab1-trace.txt | sed 's/  */ /g' | head -20
only=reference,thread_per_element,one_block,misses_last_element,skeleton,compile_error,crash,reference_after_crash,sticky_error,reference_after_sticky_error,forbidden_thrust,forbidden_cublas,forbidden_file,forbidden_header,mentions_in_comments,host_loop,reference_after_host_loop,gpu_hang,reference_after_gpu_hang,huge_output,reference_after_huge_output,exits_early,all_gpu_memory,reference_after_all_gpu_memory,out_of_bounds
s=$(date +%s)
timeout $(( 590 - ($(date +%s) - T0) )) python3 grader/corpus/corpus.py test --lab lab1 --build build --work /tmp/c100 --copies 4 --only "$only" --jobs 16 > $OUT/grade-100.txt 2>&1
echo "100 lab1 rc=$? ($(( $(date +%s) - s )) s) $(grep -c 'as expected' $OUT/grade-100.txt) as expected"; sed -n '/^submission/,$p' $OUT/grade-100.txt | grep -v "as expected" | head -8; grep -E "compiled|rows|reference passes" $OUT/grade-100.txt | tail -4
python3 .devrun/row_times.py $OUT/grade-100.txt
echo "total $(( $(date +%s) - T0 )) s"
