#!/usr/bin/env bash
# Run 38: make reliability, 15 reference-as-student runs per lab.
export PATH=/usr/local/cuda/bin:$PATH
cmake --build build -j16 > $OUT/build.log 2>&1 || { cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1; cmake --build build -j16 > $OUT/build.log 2>&1; }
s=$(date +%s)
timeout 540 python3 scripts/grader_reliability.py --build build --runs 15 --deadline 520 --output /tmp/rel > $OUT/reliability.txt 2>&1
echo "reliability rc=$? ($(( $(date +%s) - s )) s)"; tail -40 $OUT/reliability.txt
cp -r /tmp/rel $OUT/rel 2>/dev/null; ls $OUT/rel | head
