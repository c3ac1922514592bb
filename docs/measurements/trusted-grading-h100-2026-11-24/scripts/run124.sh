#!/usr/bin/env bash
# Session 18, run 124 (H100): make reliability for labs 4 and 5, 20 runs each: session 17 made their
# speed checks judge the method of every timed run (an unscored ratio earns nothing), so a timed run the
# launch watch misjudged would now cost a fair student points. The reference graded as the student.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
s=$(date +%s); timeout $(( 585 - ($(date +%s) - T0) )) python3 scripts/grader_reliability.py --build build --runs 20 --lab 4 --lab 5 --output build/reliability --deadline $(( 540 - ($(date +%s) - T0) )) > $OUT/reliability-labs45.log 2>&1
echo "== reliability labs 4, 5: rc=$? ($(( $(date +%s) - s )) s)"; grep -E "timing failures|^\| step|^- run" $OUT/reliability-labs45.log | cut -c1-240
echo "total $(( $(date +%s) - T0 )) s"
