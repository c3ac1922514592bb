#!/usr/bin/env bash
# Session 12: corpus 3 with lab 3's new step2.speed; step2.speed per row.
export PATH=/usr/local/cuda/bin:$PATH
[ -f build/build.ninja ] || { cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1; cmake --build build -j16 > $OUT/build.log 2>&1; echo cold build; }
s=$(date +%s); timeout 540 ctest --test-dir build -R "grader\.corpus_lab3\$" -V > $OUT/corpus3.log 2>&1
echo "corpus 3 rc=$? ($(( $(date +%s) - s )) s)"; grep -E "expected" $OUT/corpus3.log | grep -v "as expected" | cut -c1-170 | head -12
python3 .devrun/speed_table.py build/corpus/corpus_lab3 step2.speed > $OUT/corpus3-step2-speed.txt; cut -c1-120 $OUT/corpus3-step2-speed.txt
