#!/usr/bin/env bash
# Prepared in session 7, to run first next session (H100), after run61.sh: today's unverified grading changes
# (empty /run in the sandbox, GPU idle before spawned runners warm, opaque staging, 'not run: GPU failed',
# the lock passed to lab graders): the lab GPU tests, then corpora 2, 3 and 5. Session 8 added the method
# checks from the student's machine code (labs 3, 4, 5; cuobjdump from /usr/local/cuda/bin): the lab GPU tests
# and corpora 3 and 5 (round6 06 and 12 now expected to fail their steps) run them.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s; $(grep -E '^MEMLAB_(CUOBJDUMP|NVDISASM):' build/CMakeCache.txt | tr '\n' ' ')"
s=$(date +%s); timeout 240 ctest --test-dir build -L gpu -R '^lab[1-5]\.' -j1 --output-on-failure > $OUT/ctest.log 2>&1
echo "lab GPU tests ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/ctest.log)"; grep -E "\*\*\*Failed|Failed  |Timeout" $OUT/ctest.log | head
s=$(date +%s); timeout $(( 590 - ($(date +%s) - T0) )) ctest --test-dir build -R 'grader\.corpus_lab[235]$' -j1 --output-on-failure > $OUT/corpus.log 2>&1
echo "corpora 2,3,5 rc=$? ($(( $(date +%s) - s )) s)"; grep -E "Test #|expected" $OUT/corpus.log | grep -v "as expected" | head -20
