#!/usr/bin/env bash
# Session 9, run 64 (H100): why the reference loses its method check under grade.py (corpus lab 5 and lab 3).
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"; cuobjdump --version | tail -1; nvcc --version | tail -1
timeout 200 ctest --test-dir build -R 'grader\.corpus_lab5$' > /dev/null 2>&1
R=build/corpus/corpus_lab5/results
find $R -maxdepth 2 | head -20
f=$(find $R -path '*00-reference*' -name 'feedback*' | head -1); echo "== $f"; grep -i -B2 -A4 "machine code\|cuobjdump\|Step 3" "$f" | head -40
for lib in $R/.work/kit/liblab5_reference.so $(find $R/.work/stage -path '*00-reference*' -name '*.so' | head -1); do echo "== $lib"; cuobjdump -lelf -lptx "$lib"; done
find $R/.work/stage -path '*00-reference*' | head; cat $(find $R/.work/stage -path '*00-reference*' -name 'run.log' | head -1) | tail -30
tar czf $OUT/results.tgz $R 2>/dev/null; echo "total $(( $(date +%s) - T0 )) s"
