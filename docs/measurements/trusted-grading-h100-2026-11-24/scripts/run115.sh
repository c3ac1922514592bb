#!/usr/bin/env bash
# Session 17, run 115 (H100): the order shake (untimed student calls hold the runner's stream and the legacy
# default stream for 100 and 600 us, the longer in turn). Corpus 2 whole (its three new rows and round 22's
# race), corpus 5 whole, every lab's GPU tests, and each lab's reference traced (what the shake costs a row).
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
for lab in 1 2 3 4 5; do
  s=$(date +%s%N)
  MEMLAB_TRACE_PHASES=1 build/labs/lab$lab/lab${lab}_grader --student build/labs/lab$lab/liblab${lab}_reference.so --results /tmp/r$lab.json --output-dir /tmp/o$lab > $OUT/lab$lab-trace.txt 2>&1
  echo "lab$lab reference traced: rc=$? $(( ($(date +%s%N) - s) / 1000000 )) ms; $(grep -E '^phase call_lab' $OUT/lab$lab-trace.txt | sed 's/  */ /g')"
done
for c in 2 5; do
  s=$(date +%s); timeout 150 ctest --test-dir build -R "grader\.corpus_lab$c\$" --output-on-failure > $OUT/corpus$c.log 2>&1
  echo "corpus $c rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/corpus$c.log)"; grep -E "^[0-9][0-9]-" $OUT/corpus$c.log | grep -v "as expected" | cut -c1-220 | head -12
done
s=$(date +%s); timeout 280 ctest --test-dir build -L gpu -R '^lab[1-5]\.' -j1 --output-on-failure > $OUT/ctest-labs.log 2>&1
echo "lab GPU tests rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/ctest-labs.log)"; grep -E "\*\*\*Failed|Failed  |Timeout" $OUT/ctest-labs.log | head
echo "total $(( $(date +%s) - T0 )) s"
