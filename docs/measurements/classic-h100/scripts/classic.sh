#!/usr/bin/env bash
# Issue 16, "classic exercises": every new measurement, once, on a fresh GPU host.
#   (a) lab 2: the step 1 sums built with and without -Xptxas -dlcm=cg (make lab2-profile REFERENCE=1,
#       the SASS of both builds, and the lab 2 grader timing the -dlcm=cg build against the usual one);
#   (b) lab 3: make lab3-profile REFERENCE=1 (DRAM busy against FP32 FMA / FP64 busy, float and double);
#   (c) lab 5: build/bench/bench_lab5_gemv (block sizes 32-512; the GPU against the CPU up to N = 32768).
# Needs .deps (Catch2) carried, nvcc and ncu in /usr/local/cuda/bin. Prints a summary; the logs go to
# $OUT/classic-logs.tgz. Each part reports its own failure and the script goes on; the whole stays
# under about 7.5 minutes (a part that would start too late is skipped, and says so).
set -u
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/classic-out}
mkdir -p "$OUT"
logs=$(mktemp -d)
start=$(date +%s)
deadline=450   # seconds after start by which every part must have ended

elapsed() { echo $(( $(date +%s) - start )); }
# limit <seconds>: that many, or what is left before the deadline (0: no time left).
limit() { local left=$(( deadline - $(elapsed) )); [ "$left" -lt "$1" ] && echo $(( left > 0 ? left : 0 )) || echo "$1"; }
# part <name> <seconds> <command...>: runs the command with a time limit, its output in $logs/<name>.log.
part() {
  local name=$1 seconds; seconds=$(limit "$2"); shift 2
  if [ "$seconds" -lt 10 ]; then echo "[$name] SKIPPED: no time left ($(elapsed) s)"; return 1; fi
  local t=$(date +%s)
  # through bash -c, so that a part may be one of the functions below (exported)
  timeout "$seconds" bash -c '"$@"' _ "$@" > "$logs/$name.log" 2>&1
  local rc=$?
  if [ $rc -eq 0 ]; then echo "[$name] ok ($(( $(date +%s) - t )) s)"; else echo "[$name] FAILED rc=$rc ($(( $(date +%s) - t )) s; limit $seconds s): last lines:"; tail -8 "$logs/$name.log" | sed 's/^/    /'; fi
  return $rc
}

echo "== host: $(hostname), HEAD $(git rev-parse --short HEAD 2>/dev/null)"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader 2>&1 | head -2
echo "ncu: $(ncu --version 2>&1 | tail -1); nvcc: $(nvcc --version | tail -1)"
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2), $(nproc) threads; python3 numpy: $(python3 -c 'import numpy; print(numpy.__version__)' 2>/dev/null || echo absent)"

part configure 90 cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH="$PWD/.deps"
part build 240 cmake --build build -j16 --target lab2 lab2_profile lab3 lab3_profile bench_lab5_gemv memlab_host_tests
part host-tests 30 build/tests/host/memlab_host_tests "*variant*,*CPU GEMV*,*grid smaller*"

echo
echo "== (a) lab 2: loads with and without -Xptxas -dlcm=cg"
# Which load instructions each build has (LDG.E and its cache-operator suffixes).
sass() {
  command -v cuobjdump > /dev/null || { echo "cuobjdump is not installed"; return 1; }
  for lib in build/labs/lab2/liblab2_reference.so build/labs/lab2/liblab2_reference_uncached.so; do
    echo "# $lib"
    cuobjdump -sass "$lib" | awk '/Function :/ {f=$3} /LDG/ {match($0, /LDG[A-Z0-9._]*/); print f, substr($0, RSTART, RLENGTH)}' | sort | uniq -c
  done
}
export -f sass
part lab2-sass 30 sass && grep -E "^#|thread_per|per_column|per_row" "$logs/lab2-sass.log" | head -20
part lab2-profile 100 env BUILD=build LAB_BUILD=reference scripts/profile.sh lab2
cp build/labs/lab2/profile.csv "$logs/lab2-profile.csv" 2>/dev/null
grep -vE "^note:|^Running |^==PROF==" "$logs/lab2-profile.log" | grep -v "^$" | head -30
# The grader times the -dlcm=cg build (as the student) against the usual reference, interleaved.
part lab2-grader-uncached 90 build/labs/lab2/lab2_grader --student build/labs/lab2/liblab2_reference_uncached.so \
  --results "$logs/lab2-uncached.json" --output-dir build/classic-lab2
grep -iE "row_sums|column_sums|peak measured|ratio|speed" "$logs/lab2-grader-uncached.log" | head -16

echo
echo "== (b) lab 3: make lab3-profile REFERENCE=1"
part lab3-profile 100 env BUILD=build LAB_BUILD=reference scripts/profile.sh lab3
cp build/labs/lab3/profile.csv "$logs/lab3-profile.csv" 2>/dev/null
grep -vE "^note:|^Running |^==PROF==" "$logs/lab3-profile.log" | grep -v "^$" | head -20

echo
echo "== (c) lab 5: bench_lab5_gemv"
part lab5-bench 170 build/bench/bench_lab5_gemv
grep -E "^\||^#|^driver" "$logs/lab5-bench.log" | cut -c1-260
numpy_gemv() {
  python3 - <<'PY'
import time, numpy as np
for n in (2048, 8192, 20000):
    a = np.random.default_rng(1).random((n, n)); x = np.random.default_rng(2).random(n); y = np.ones(n)
    ts = []
    for _ in range(4):
        t = time.perf_counter(); r = 0.75 * (a @ x) - 0.5 * y; ts.append(time.perf_counter() - t)
    t = sorted(ts[1:])[1]
    print(f"numpy N={n}: {t * 1e3:.2f} ms, {8 * n * (n + 3) / t / 1e9:.0f} GB/s")
PY
}
export -f numpy_gemv
if python3 -c "import numpy" 2>/dev/null; then
  part numpy 60 numpy_gemv && cat "$logs/numpy.log"
else
  echo "[numpy] absent on this host: no NumPy comparison"
fi

echo
echo "== done in $(elapsed) s"
tar czf "$OUT/classic-logs.tgz" -C "$logs" . && echo "logs: $OUT/classic-logs.tgz ($(ls "$logs" | tr '\n' ' '))"
