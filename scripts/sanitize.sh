#!/usr/bin/env bash
# What `make labN-sanitize` runs: the lab's sanitize program (your shared-memory
# kernels, once each, on small awkward sizes) under compute-sanitizer racecheck,
# which reports every pair of threads that touch the same shared-memory word
# without a barrier between them (a missing __syncthreads()).
#   scripts/sanitize.sh lab5                                  build and check your file
#   scripts/sanitize.sh --program P --library L               (the project's tests)
# Exit status: 0 no hazards, 1 hazards or an error, 77 no GPU (0 for scripts/sanitize.sh labN).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = "--program" ] && [ $# -eq 4 ] && [ "$3" = "--library" ]; then
  program=$2
  library=$4
else
  lab=${1:?usage: scripts/sanitize.sh labN | --program P --library L}
  build=${BUILD:-build}
  which=${LAB_BUILD:-student}
  if ! cmake --build "$build" --target help | grep -q "${lab}_sanitize"; then
    echo "$lab has no sanitize step (only labs with shared-memory kernels have one)." >&2
    exit 2
  fi
  cmake --build "$build" --target "${lab}_sanitize" "${lab}_${which}" "${lab}_reference"
  program="$build/labs/$lab/${lab}_sanitize"
  library="$build/labs/$lab/lib${lab}_${which}.so"
fi

# Without a GPU there is nothing to check: said plainly, and exit status 77 for
# the project's tests (CTest's SKIP_RETURN_CODE), 0 for `make labN-sanitize`.
if ! why=$("$program" --gpu); then
  echo "Your code compiled. Checking it for races needs an NVIDIA GPU, and none can be used here:"
  echo "  $why"
  [ -n "${lab:-}" ] && exit 0
  exit 77
fi

sanitizer=$(command -v compute-sanitizer || true)
[ -z "$sanitizer" ] && [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer" ] &&
  sanitizer=${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer
if [ -z "$sanitizer" ]; then
  echo "compute-sanitizer is not installed; it comes with the CUDA toolkit (bin/compute-sanitizer)." >&2
  exit 1
fi

echo "Running $program under compute-sanitizer --tool racecheck (a minute at most)"
status=0
"$sanitizer" --tool racecheck --racecheck-report hazard --print-limit 20 --error-exitcode 1 \
  "$program" --student "$library" || status=$?
if [ "$status" -eq 0 ]; then
  echo "No races: every shared-memory word is written and read with a barrier between."
else
  echo "compute-sanitizer found races (above): each names the kernel, the two accesses and the"
  echo "source lines. A write and a read of the same word by different threads need a"
  echo "__syncthreads() between them, in both directions: after a tile is written (before it is"
  echo "read) and after it has been read (before the next tile overwrites it)."
fi
exit "$status"
