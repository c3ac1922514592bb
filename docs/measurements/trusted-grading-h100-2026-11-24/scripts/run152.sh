#!/usr/bin/env bash
# Session 22, run 152 (H100): first run of the tall matrices (labs 2, 3, 5): their GPU tests (reference, skeleton,
# mutants), then corpus 5 whole.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
if [ ! -f build/build.ninja ]; then cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }; fi
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
for lab in 2 3 5; do
  s=$(date +%s); timeout 150 ctest --test-dir build -L gpu -R "^lab$lab\\." -j1 --output-on-failure > $OUT/ctest-lab$lab.log 2>&1
  echo "lab $lab GPU tests rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/ctest-lab$lab.log)"
  grep -E "Test +#.*(sec|Failed|Timeout)" $OUT/ctest-lab$lab.log | sed -E 's/ +/ /g' | cut -c1-120
done
left=$(( 585 - ($(date +%s) - T0) ))
s=$(date +%s); timeout $left ctest --test-dir build -R "grader\.corpus_lab5\$" --output-on-failure > $OUT/corpus5.log 2>&1
echo "corpus 5 rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/corpus5.log)"; grep -E "expected [0-9]|, expected" $OUT/corpus5.log | cut -c1-260 | head -8
echo "total $(( $(date +%s) - T0 )) s"
