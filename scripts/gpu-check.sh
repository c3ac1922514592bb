#!/usr/bin/env bash
# What `make gpu-check` runs on a GPU host: build everything, run the GPU tests
# REPEAT times (TESTS narrows them with a regex), keep every run's logs and JSON
# results under <build>/gpu-check/, and print a summary table last. Needs no
# network and no package manager: only CMake, a compiler, CUDA, Catch2 (.deps).
#   REPEAT=20 TESTS='lab1\.(reference|mutant_one_block)' scripts/gpu-check.sh build
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
repeat=${REPEAT:-1}
tests=${TESTS:-}
jobs=${JOBS:-$(nproc)}
results="$(pwd)/$build/gpu-check"
rm -rf "$results"
mkdir -p "$results"

echo "Building ($jobs jobs); log in $results/build.log"
cmake --build "$build" -j "$jobs" >"$results/build.log" 2>&1 || { tail -30 "$results/build.log"; exit 1; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader >"$results/gpu.txt" 2>/dev/null ||
  echo "no GPU visible (nvidia-smi failed)" >"$results/gpu.txt"

filter=()
[ -n "$tests" ] && filter=(-R "$tests")
for run in $(seq 1 "$repeat"); do
  rm -rf "$build/test-results"  # keep only the results of this run's tests
  ctest --test-dir "$build" -L gpu "${filter[@]}" --output-on-failure >"$results/run$run.log" 2>&1 || true
  mkdir -p "$results/run$run"
  for dir in "$build"/test-results/*/; do
    [ -f "$dir/results.json" ] && cp "$dir/results.json" "$results/run$run/$(basename "$dir").json"
  done
  echo "run $run of $repeat: $(grep -E 'tests passed' "$results/run$run.log" || echo 'no summary')"
done
python3 scripts/gpu_check_summary.py "$results"
