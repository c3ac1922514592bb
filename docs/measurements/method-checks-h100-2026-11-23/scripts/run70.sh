#!/usr/bin/env bash
# Session 10, the final GPU run (H100): this session's grading changes (one reader of machine code with ptxas;
# the scan's looks after compiling; the runner's guard on registered GPU code, active in every grade.py row and
# in calibration) through corpus 3 (red teams 15-16 included); then every lab GPU test (issue 15's whole
# suite on the final tree); then corpus 2 if time is left.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
left() { echo $(( 585 - ($(date +%s) - T0) )); }
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s; ptxas: $(grep MEMLAB_PTXAS: build/CMakeCache.txt)"
s=$(date +%s); timeout 230 ctest --test-dir build -R 'grader\.corpus_lab3$' -V > $OUT/corpus3.log 2>&1
echo "corpus 3 rc=$? ($(( $(date +%s) - s )) s)"; grep -E "expected|not run" $OUT/corpus3.log | grep -v "as expected" | cut -c1-150 | head -12
grep -E "round16|round15_08" $OUT/corpus3.log | sed 's/^[0-9]*: //' | cut -c1-100
s=$(date +%s); timeout $(( $(left) - 50 )) ctest --test-dir build -L gpu -R '^lab[1-5]\.' -j1 --output-on-failure > $OUT/ctest-labs.log 2>&1
echo "lab GPU tests rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/ctest-labs.log)"; grep -E "\*\*\*Failed|Timeout|Not Run" $OUT/ctest-labs.log | head
[ $(left) -gt 45 ] && { s=$(date +%s); timeout $(( $(left) - 3 )) ctest --test-dir build -R 'grader\.corpus_lab2$' > $OUT/corpus2.log 2>&1; echo "corpus 2 rc=$? ($(( $(date +%s) - s )) s)"; }
