#!/usr/bin/env bash
# Session 7, run 60 (H100): issue 17 on the GPU. (1) make release, then make lab1 in the released tree on the skeleton and on the reference; (2) a run compiled without a GPU finished on the GPU server with --resume; (3) the same 20 lab 1 submissions in today's layout and as GitHub Classroom clones.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
touch build/.configured
echo "build $(( $(date +%s) - T0 )) s"
# (1) the release
s=$(date +%s)
timeout 240 make release OUT=/tmp/handout > $OUT/release.log 2>&1; echo "make release rc=$? ($(( $(date +%s) - s )) s)"; tail -3 $OUT/release.log
cp -a .deps /tmp/handout/
ls /tmp/handout/solutions 2>&1 | head -1; ls /tmp/handout/references | tr '\n' ' '; echo
( cd /tmp/handout && s=$(date +%s) && timeout 200 make lab1 > $OUT/handout-skeleton.txt 2>&1; echo "released tree, skeleton: make lab1 rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'steps done|step 1' $OUT/handout-skeleton.txt | tr '\n' ' ' | cut -c1-250)" )
cp solutions/lab1_caching/vector_add.cu /tmp/handout/labs/lab1_caching/vector_add.cu
( cd /tmp/handout && s=$(date +%s) && timeout 120 make lab1 > $OUT/handout-reference.txt 2>&1; echo "released tree, reference: make lab1 rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'steps done' $OUT/handout-reference.txt)"; grep -E "keeps up" $OUT/handout-reference.txt | tail -1 | cut -c1-200 )
grep -E "keeps up" build/labs/lab1/lab1-checks.log 2>/dev/null | tail -1 | cut -c1-200
# (2) compiled without a GPU, finished on the GPU server
s=$(date +%s)
mkdir -p /tmp/subs/ada /tmp/subs/bob /tmp/subs/eve
cp solutions/lab1_caching/vector_add.cu /tmp/subs/ada/; cp labs/lab1_caching/vector_add.cu /tmp/subs/bob/; echo 'broken(' > /tmp/subs/eve/vector_add.cu
{ cmake -S . -B build-nogpu -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps -DCMAKE_CUDA_ARCHITECTURES="75-real;80-real;86-real;89-real;90" && cmake --build build-nogpu -j16 --target lab1_grading; } > $OUT/nogpu-build.log 2>&1 || tail -5 $OUT/nogpu-build.log
CUDA_VISIBLE_DEVICES= timeout 120 python3 grader/grade.py --lab 1 --submissions /tmp/subs --out /tmp/g1 --build build-nogpu > $OUT/resume.txt 2>&1; echo "no-GPU session rc=$? (expect 1)"
timeout 120 make grade LAB=1 SUBMISSIONS=/tmp/subs OUT=/tmp/g1 RESUME=1 >> $OUT/resume.txt 2>&1; echo "GPU session rc=$? (expect 0) ($(( $(date +%s) - s )) s)"
python3 -c "import json; [print(' ', s['host'], s.get('architectures'), (s.get('gpu') or {}).get('name') if isinstance(s.get('gpu'),dict) else s.get('gpu'), s.get('compiled'), s.get('graded_on_gpu'), s.get('compiled_again','')) for s in json.load(open('/tmp/g1/run.json'))['sessions']]"
cut -d, -f1-5 /tmp/g1/gradebook.csv; cp /tmp/g1/run.json $OUT/resume-run.json
# (3) layouts
if [ $(( $(date +%s) - T0 )) -lt 330 ]; then source .devrun/layouts.sh; else echo "layouts skipped: $(( $(date +%s) - T0 )) s used"; fi
cd $OUT && tar czf run60.tgz *.txt *.csv *.json release.log 2>/dev/null; echo "total $(( $(date +%s) - T0 )) s"
