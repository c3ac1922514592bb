#!/usr/bin/env bash
# Session 22, run 153 (H100): corpus 3 whole on run 152's tree (tall matrices: three more checks per graded row).
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
if [ ! -f build/build.ninja ]; then cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }; fi
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
left=$(( 590 - ($(date +%s) - T0) ))
s=$(date +%s); timeout $left ctest --test-dir build -R "grader\.corpus_lab3\$" --output-on-failure > $OUT/corpus3.log 2>&1
echo "corpus 3 rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/corpus3.log)"; grep -E "expected [0-9]|, expected|not as expected" $OUT/corpus3.log | cut -c1-260 | head -12
echo "total $(( $(date +%s) - T0 )) s"
