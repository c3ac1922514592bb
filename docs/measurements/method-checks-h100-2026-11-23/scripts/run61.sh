#!/usr/bin/env bash
# Session 7, run 61 (H100): the released tree again, after the variant reference was added to the release: make lab1 on the skeleton and on the reference, make lab2-profile's variant present.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
timeout 240 make release OUT=/tmp/handout > $OUT/release.log 2>&1; echo "make release rc=$? ($(( $(date +%s) - T0 )) s)"; tail -1 $OUT/release.log
cp -a .deps /tmp/handout/; ls /tmp/handout/references | tr '\n' ' '; echo
cd /tmp/handout
s=$(date +%s); timeout 200 make lab1 > $OUT/handout-skeleton.txt 2>&1; echo "released tree, skeleton: make lab1 rc=$? ($(( $(date +%s) - s )) s)"; grep -E "^1 |^2 |^3 |^4 |steps done|FAIL|BLOCKED" $OUT/handout-skeleton.txt | cut -c1-160 | head -8
cp $OLDPWD/solutions/lab1_caching/vector_add.cu labs/lab1_caching/vector_add.cu
s=$(date +%s); timeout 120 make lab1 > $OUT/handout-reference.txt 2>&1; echo "released tree, reference: make lab1 rc=$? ($(( $(date +%s) - s )) s)"; grep -E "^1 |^2 |^3 |^4 |steps done" $OUT/handout-reference.txt | cut -c1-200
s=$(date +%s); timeout 60 cmake --build build --target lab2_profile > $OUT/handout-lab2-profile-build.txt 2>&1; echo "released tree: lab2_profile builds rc=$? ($(( $(date +%s) - s )) s)"; ls build/labs/lab2/ | grep -c uncached
echo "total $(( $(date +%s) - T0 )) s"
