#!/usr/bin/env bash
# Session 7, run 56: `make lab1`..`make lab5` with each reference as the student's file (issue 16's final pass), then corpora 4 and 5.
export PATH=/usr/local/cuda/bin:$PATH
[ -f build/build.ninja ] || { cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1; cmake --build build -j16 > $OUT/build.log 2>&1; }
touch build/.configured
for f in solutions/*/*.cu; do cp "$f" "labs/$(basename $(dirname $f))/"; done
mkdir -p $OUT/make-labs
for l in 1 2 3 4 5; do
  s=$(date +%s)
  make lab$l > $OUT/make-labs/make-lab$l.txt 2>&1; rc=$?
  echo "make lab$l rc=$rc ($(( $(date +%s) - s )) s): $(grep -E 'steps done' $OUT/make-labs/make-lab$l.txt | tail -1)"
  cp build/labs/lab$l/results.json $OUT/make-labs/lab$l-results.json 2>/dev/null
  cp build/labs/lab$l/*.png $OUT/make-labs/ 2>/dev/null
done
s=$(date +%s)
timeout 200 ctest --test-dir build -R 'grader\.corpus_lab[45]$' -j1 --output-on-failure > $OUT/corpus.log 2>&1
echo "corpora 4,5 rc=$? ($(( $(date +%s) - s )) s)"; grep -E "Passed|Failed|\*\*\*|expected|got" $OUT/corpus.log | head -20
cd $OUT && tar czf make-labs.tgz make-labs && rm -rf make-labs; ls
