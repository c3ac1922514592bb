#!/usr/bin/env bash
# Session 6, run 51: floors with a margin, arithmetic floors, checks past 2^32 elements (labs 2, 3, 5), the peak ceiling; lab GPU tests, corpora 2 and 3 with round 6.
export PATH=/usr/local/cuda/bin:$PATH
s=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - s )) s"
for l in 1 2 3 5; do build/labs/lab$l/lab${l}_grader --student build/labs/lab$l/liblab${l}_reference.so --results build/r$l.json --output-dir build/o$l > $OUT/lab$l.txt 2>&1; echo "lab$l rc=$?"; done
grep -E "peak|Memory" $OUT/lab1.txt | head -3; grep -E "keeps up|correct for any|of peak" $OUT/lab[1235].txt | cut -c1-230
python3 - <<'PY'
import json
for l in (1,2,3,5):
    d=json.load(open(f"build/r{l}.json"))
    for c in d["checks"]:
        print(l, c["id"], c["verdict"], round(c["seconds"],2), c["measured"][:90])
PY
s=$(date +%s)
timeout 260 ctest --test-dir build -L gpu -R '^lab[1-5]\.' -j1 --output-on-failure > $OUT/ctest.log 2>&1
echo "lab GPU tests ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/ctest.log)"; grep -E "\*\*\*Failed|Failed  |Timeout" $OUT/ctest.log | head
s=$(date +%s)
timeout 200 ctest --test-dir build -R 'grader\.corpus_lab[23]$' -j1 --output-on-failure > $OUT/corpus.log 2>&1
echo "corpora 2-3 rc=$? ($(( $(date +%s) - s )) s)"; grep -E "Passed|Failed|\*\*\*|expected|got" $OUT/corpus.log | head -20
