#!/usr/bin/env bash
# Session 7, run 55: HEAD fed04d8 (by_gpu refactor, nlohmann JSON, red team 8 scan fixes): build, each lab's grader on its reference, the lab GPU tests, corpora 2 and 3.
export PATH=/usr/local/cuda/bin:$PATH
s=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - s )) s"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
for l in 1 2 3 4 5; do build/labs/lab$l/lab${l}_grader --student build/labs/lab$l/liblab${l}_reference.so --results build/r$l.json --output-dir build/o$l > $OUT/lab$l.txt 2>&1; echo "lab$l rc=$?"; done
python3 - <<'PY'
import json
for l in (1,2,3,4,5):
    d=json.load(open(f"build/r{l}.json"))
    print(l, d["step_verdicts"], [ (c["id"], c["verdict"]) for c in d["checks"] if c["verdict"]!="pass"])
PY
s=$(date +%s)
timeout 250 ctest --test-dir build -L gpu -R '^lab[1-5]\.' -j1 --output-on-failure > $OUT/ctest.log 2>&1
echo "lab GPU tests ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/ctest.log)"; grep -E "\*\*\*Failed|Failed  |Timeout" $OUT/ctest.log | head
s=$(date +%s)
timeout 170 ctest --test-dir build -R 'grader\.corpus_lab[23]$' -j1 --output-on-failure > $OUT/corpus.log 2>&1
echo "corpora 2-3 rc=$? ($(( $(date +%s) - s )) s)"; grep -E "Passed|Failed|\*\*\*|expected|got" $OUT/corpus.log | head -20
cd $OUT && tar czf logs.tgz *.log *.txt 2>/dev/null; ls $OUT | head
