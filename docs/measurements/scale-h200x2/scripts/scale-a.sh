#!/usr/bin/env bash
# Issue 18's scale figures, part 1 of 2 (nvidia-h200-x2): build, 100 lab 1 corpus submissions, graded on GPU 0 alone.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
nvidia-smi --query-gpu=index,name,uuid --format=csv,noheader
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
timeout 200 scripts/scale-figures.sh prepare 100 > $OUT/prepare.log 2>&1; echo "prepare rc=$? ($(( $(date +%s) - T0 )) s)"; tail -2 $OUT/prepare.log
timeout $(( 585 - ($(date +%s) - T0) )) scripts/scale-figures.sh one; echo "one rc=$? (total $(( $(date +%s) - T0 )) s)"
cp build/scale/one.log build/scale/one.seconds $OUT/ 2>/dev/null
