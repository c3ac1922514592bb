#!/usr/bin/env bash
# Issue 18's scale figures, part 2 of 2 (nvidia-h200-x2, the same warm machine as part 1): the same 100 graded on GPUs 0 and 1, then the table and every row compared.
export PATH=/usr/local/cuda/bin:$PATH
[ -f build/scale/one.seconds ] || { echo "part 1's results are gone (the machine was not kept warm): run both parts back to back"; exit 1; }
timeout 400 scripts/scale-figures.sh two; echo "two rc=$?"
scripts/scale-figures.sh compare | tee $OUT/compare.txt
cp build/scale/two.log build/scale/one.log build/scale/*.seconds build/scale/*.check $OUT/ 2>/dev/null
