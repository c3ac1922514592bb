#!/usr/bin/env bash
# What `make labN-profile` runs: the lab's profile program (your build of the
# lab) under Nsight Compute, with the counters the lab is about, then a table.
#   scripts/profile.sh lab1
set -euo pipefail
cd "$(dirname "$0")/.."
lab=$1
build=${BUILD:-build}
which=${LAB_BUILD:-student}  # or reference: profile the reference solution, to compare with yours
out="$build/labs/$lab"

if ! cmake --build "$build" --target "${lab}_profile" "$lab" 2>/dev/null >/dev/null; then
  if ! cmake --build "$build" --target help | grep -q "${lab}_profile"; then
    echo "$lab has no profile step." >&2
    exit 2
  fi
  cmake --build "$build" --target "${lab}_profile" "$lab"  # show the compiler's errors
fi

# Without a GPU there is nothing to measure (said before asking for Nsight Compute).
if ! why=$("$out/${lab}_profile" --gpu); then
  echo "Your code compiled. Profiling it needs an NVIDIA GPU, and none can be used here:"
  echo "  $why"
  exit 0
fi

ncu=$(command -v ncu || true)
[ -z "$ncu" ] && [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/ncu" ] && ncu=${CUDA_HOME:-/usr/local/cuda}/bin/ncu
if [ -z "$ncu" ]; then
  echo "Nsight Compute (ncu) is not installed. It comes with the CUDA toolkit (package"
  echo "nsight-compute, or https://developer.nvidia.com/nsight-compute); install it and run"
  echo "make $lab-profile again. Until then, the timings of make $lab show the same effects."
  exit 1
fi

# Each lab's profile program names the counters it is about.
metrics=$("$out/${lab}_profile" --metrics)
echo "Running $out/${lab}_profile under $ncu (metrics: $metrics)"
# --cache-control none: ncu must not flush the caches before each kernel, or
# every launch would look cold. --clock-control none: measure the GPU as it runs.
status=0
"$ncu" --cache-control none --clock-control none --metrics "$metrics" \
  --csv --page raw --print-units base --log-file "$out/profile.csv" \
  "$out/${lab}_profile" --student "$out/lib${lab}_${which}.so" --plan "$out/profile-plan.txt" ||
  status=$?
if grep -q "ERR_NVGPUCTRPERM" "$out/profile.csv" 2>/dev/null; then
  echo "The driver does not let this user read the GPU's performance counters (ERR_NVGPUCTRPERM)."
  echo "Run as root, or see https://developer.nvidia.com/ERR_NVGPUCTRPERM to allow it."
  exit 1
fi
if [ "$status" -ne 0 ]; then
  echo "ncu exited with status $status; its log is $out/profile.csv" >&2
  exit "$status"
fi
python3 scripts/ncu_table.py "$out/profile.csv" "$out/profile-plan.txt"
