#!/usr/bin/env bash
# Session 12: the launch watch in corpus 3 (red team 14/02, 15/03, 16/07 now expected to fail step 2) and lab 1's GPU tests.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
[ -f build/build.ninja ] || { cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1; cmake --build build -j16 > $OUT/build.log 2>&1; echo cold build; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head; exit 1; }
s=$(date +%s); timeout 250 ctest --test-dir build -R "grader\.corpus_lab3\$" -V > $OUT/corpus3.log 2>&1
echo "corpus 3 rc=$? ($(( $(date +%s) - s )) s)"; grep -E "expected" $OUT/corpus3.log | grep -v "as expected" | cut -c1-170 | head -12
python3 .devrun/speed_table.py build/corpus/corpus_lab3 step2.accuracy | grep -E "round14_02|round15_03|round16_07|reference " | cut -c1-60,100-330
s=$(date +%s); timeout 200 ctest --test-dir build -L gpu -R "^lab1\." -j1 --output-on-failure > $OUT/ctest-lab1.log 2>&1
echo "lab1 gpu tests rc=$? ($(( $(date +%s) - s )) s)"; grep -E "tests passed|Failed|\*\*\*" $OUT/ctest-lab1.log | head -8
