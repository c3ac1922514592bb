#!/usr/bin/env bash
# Run 39: the freezer keeps a thread's count once two reads agree, and tracks threads one by one; a slowed reference must be seen twice. Freezer stress (old and new) on this kernel, every lab GPU test, reliability of labs 2-4.
export PATH=/usr/local/cuda/bin:$PATH
g++ -O2 -std=c++17 -Icommon .devrun/stress/stress.cpp common/memlab/grading/freezer.cpp -o /tmp/new -pthread && echo "new freezer: $(/tmp/new)"
g++ -O2 -std=c++17 -I.devrun/stress/inc .devrun/stress/stress.cpp .devrun/stress/old.cpp -o /tmp/old -pthread && echo "old freezer: $(/tmp/old)"
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
s=$(date +%s)
timeout 230 ctest --test-dir build -L gpu -R '^lab[1-5]\.' -j1 --output-on-failure > $OUT/ctest.log 2>&1
echo "lab GPU tests ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/ctest.log)"; grep -E "\*\*\*Failed|Failed  |Timeout" $OUT/ctest.log | head
s=$(date +%s)
timeout 130 python3 scripts/grader_reliability.py --build build --runs 8 --lab 2 --lab 3 --lab 4 --deadline 110 --output /tmp/rel > $OUT/reliability.txt 2>&1
echo "reliability rc=$? ($(( $(date +%s) - s )) s)"; grep -E "^## |timing failures|^- run" $OUT/reliability.txt | head -20
