#!/usr/bin/env bash
# What `make labN [STEP=k]` runs: builds lab N (only what it needs), grades the
# student's file against the reference, and draws the lab's plot if it has one.
#   scripts/lab.sh lab1 [steps]
set -euo pipefail
cd "$(dirname "$0")/.."
lab=$1
steps=${2:-}
build=${BUILD:-build}

folder=$(ls -d labs/"$lab"_*/ 2>/dev/null | head -n 1 || true)
if [ -z "$folder" ]; then
  echo "There is no $lab. The labs are: $(ls -d labs/lab*_*/ | sed 's#labs/\(lab[0-9]*\)_.*#\1#' | tr '\n' ' ')" >&2
  exit 2
fi
folder=${folder%/}
if [ -n "$steps" ] && ! [[ "$steps" =~ ^[1-9][0-9]*$ ]]; then
  echo "STEP=$steps: give the number of the last step to check, e.g. STEP=2 (steps 1 and 2)." >&2
  exit 2
fi

cmake --build "$build" --target "$lab"
out="$build/labs/$lab"
args=(--student "$out/lib${lab}_student.so" --results "$out/results.json" --output-dir "$out")
[ -n "$steps" ] && args+=(--steps "$steps")

status=0
"$out/${lab}_grader" "${args[@]}" || status=$?
case $status in
  77) echo "(Your code compiled. Grading it needs a GPU; nothing here is wrong with your code.)"
      exit 0 ;;
  0 | 1) ;;
  *) exit "$status" ;;
esac

echo "Results for programs: $out/results.json; the grader's detailed log: $out/$lab-checks.log"
if [ -f "$folder/grading/plot.py" ]; then
  plotter=""
  for python in python3 /usr/bin/python3; do
    if command -v "$python" >/dev/null 2>&1 && "$python" -c "import matplotlib" 2>/dev/null; then
      plotter=$python
      break
    fi
  done
  if [ -n "$plotter" ]; then
    "$plotter" "$folder/grading/plot.py" "$out" || echo "(the plot failed; the data is in $out)"
  else
    echo "No plot: matplotlib is missing (scripts/bootstrap.sh --plots installs it); the data is in $out"
  fi
fi
exit "$status"
