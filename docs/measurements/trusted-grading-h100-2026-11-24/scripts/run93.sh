#!/usr/bin/env bash
# Session 13, run 93 (H100): how many modules a runner sees loaded before its first call, against the fatbins
# registered (MEMLAB_TRACE_MODULES): lab 4's reference through make lab4, the same with a constructor that loads a
# module of its own through the driver, lab 4's reference built by grade.py (corpus 4), lab 1 through make lab1;
# then lab 4's GPU tests.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
export MEMLAB_TRACE_MODULES=1
cp labs/lab4_matmul/matmul.cu /tmp/skeleton4.cu
cp solutions/lab4_matmul/matmul.cu labs/lab4_matmul/matmul.cu
make lab4 > $OUT/lab4-reference.txt 2>&1; echo "== make lab4, reference: rc=$?"; grep -E "runner \(pid|probe|steps done" $OUT/lab4-reference.txt
cat solutions/lab4_matmul/matmul.cu .devrun/ctor_module_tail.cu > labs/lab4_matmul/matmul.cu
make lab4 > $OUT/lab4-ctor.txt 2>&1; echo "== make lab4, reference + constructor loading a module: rc=$?"; grep -E "runner \(pid|probe|steps done|error" $OUT/lab4-ctor.txt | head
cp /tmp/skeleton4.cu labs/lab4_matmul/matmul.cu
cp solutions/lab1_caching/vector_add.cu labs/lab1_caching/vector_add.cu
make lab1 > $OUT/lab1-reference.txt 2>&1; echo "== make lab1, reference: rc=$?"; grep -E "runner \(pid|steps done" $OUT/lab1-reference.txt
git checkout labs/lab1_caching/vector_add.cu
timeout 120 python3 grader/corpus/corpus.py test --lab lab4 --build build --work /tmp/c4 --only reference > $OUT/corpus4-reference.txt 2>&1
echo "== grade.py, lab 4 reference (corpus 4): rc=$?"; grep -rhE "runner \(pid" /tmp/c4 2>/dev/null | sort | uniq -c | head
unset MEMLAB_TRACE_MODULES
s=$(date +%s); timeout 150 ctest --test-dir build -L gpu -R '^lab4\.' -j1 --output-on-failure > $OUT/ctest-lab4.log 2>&1
echo "lab 4 GPU tests rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/ctest-lab4.log)"; grep -E "\*\*\*Failed|Failed  |Timeout" $OUT/ctest-lab4.log | head
echo "total $(( $(date +%s) - T0 )) s"
