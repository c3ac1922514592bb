#!/usr/bin/env bash
# The scale figures of docs/performance.md: N lab 1 submissions (copies of the
# grader's corpus, grader/corpus/corpus.py) graded on one GPU (--gpus 0) and on
# two (--gpus 0,1) of one server: the wall time of each, and every row's verdict
# compared between the two runs. Needs a server with two GPUs of one model.
#
#   scripts/scale-figures.sh prepare [N]   build lab 1's grading kit and N submissions (default 200)
#   scripts/scale-figures.sh one           grade them on GPU 0, timed       (output: $WORK/one)
#   scripts/scale-figures.sh two           grade them on GPUs 0 and 1, timed (output: $WORK/two)
#   scripts/scale-figures.sh compare       the table, and every row's verdict in both runs compared
#   scripts/scale-figures.sh all [N]       the four in order
#
# The work folder is SCALE_WORK (default build/scale); GRADE_ARGS goes to grade.py
# (GRADE_ARGS=--no-sandbox where bwrap cannot run). On an H100 one GPU grades about
# 100 lab 1 corpus submissions in 400 s (compiles included), so 200 on one GPU take
# longer than a 10-minute session allows: run the steps one by one, or N=100.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
WORK=${SCALE_WORK:-$BUILD/scale}
step=${1:-}
count=${2:-200}

prepare() {
  make configure BUILD="$BUILD"
  cmake --build "$BUILD" --target lab1_grading -j "$(nproc)"
  rm -rf "$WORK/corpus"
  mkdir -p "$WORK"
  # Whole copies of the corpus, then the first entries of one more, up to N.
  python3 - "$WORK/corpus" "$count" <<'PY'
import json, math, os, shutil, subprocess, sys
out, count = sys.argv[1], int(sys.argv[2])
corpus = os.path.join("grader", "corpus", "corpus.py")
subprocess.run([sys.executable, corpus, "build", "--lab", "lab1", "--out", out, "--copies", "1"], check=True,
               stdout=subprocess.DEVNULL)
per_copy = len(os.listdir(os.path.join(out, "submissions")))
copies = max(2, math.ceil(count / per_copy))
subprocess.run([sys.executable, corpus, "build", "--lab", "lab1", "--out", out, "--copies", str(copies)], check=True,
               stdout=subprocess.DEVNULL)
folder = os.path.join(out, "submissions")
# corpus.py names them NN-entry-copyK: keep copy 1's entries, then copy 2's, ... in order.
order = sorted(os.listdir(folder), key=lambda name: (int(name.rsplit("-copy", 1)[1]), name))
for name in order[count:]:
    shutil.rmtree(os.path.join(folder, name))
expected = json.load(open(os.path.join(out, "expected.json")))
json.dump({k: v for k, v in expected.items() if k in order[:count]}, open(os.path.join(out, "expected.json"), "w"), indent=1)
print(f"{min(count, len(order))} submissions ({per_copy} corpus entries a copy) in {folder}")
PY
}

grade() {  # name, GPUs
  local out="$WORK/$1"
  rm -rf "$out"
  local started ended code=0
  started=$(date +%s.%N)
  # shellcheck disable=SC2086
  python3 grader/grade.py --lab 1 --submissions "$WORK/corpus/submissions" --out "$out" --build "$BUILD" \
    --jobs "$(nproc)" --gpus "$2" ${GRADE_ARGS:-} >"$WORK/$1.log" 2>&1 || code=$?
  ended=$(date +%s.%N)
  python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$started" "$ended" >"$WORK/$1.seconds"
  echo "$1 (--gpus $2): $(cat "$WORK/$1.seconds") s wall, grade.py exit code $code (log: $WORK/$1.log)"
  tail -n 3 "$WORK/$1.log"
}

compare() {
  python3 - "$WORK" <<'PY'
import csv, glob, json, os, sys
work = sys.argv[1]

def verdicts(run):
    rows = {}
    for path in glob.glob(os.path.join(work, run, "students", "*", "outcome.json")):
        outcome = json.load(open(path))
        rows[outcome["student"]] = (outcome["status"], tuple((c["id"], c.get("verdict")) for c in outcome.get("checks", [])))
    return rows

one, two = verdicts("one"), verdicts("two")
seconds = {run: float(open(os.path.join(work, f"{run}.seconds")).read()) for run in ("one", "two")}
record = json.load(open(os.path.join(work, "two", "run.json")))
models = sorted({g.get("name", "") for g in record.get("gpus", {}).values()})
print(f"| GPUs | submissions | wall time | speed-up |\n|---|---|---|---|")
print(f"| 1 | {len(one)} | {seconds['one']:.0f} s | 1.00x |")
print(f"| 2 | {len(two)} | {seconds['two']:.0f} s | {seconds['one'] / seconds['two']:.2f}x |")
print(f"GPU model(s): {', '.join(models)}")
per_gpu = {}
for path in glob.glob(os.path.join(work, "two", "students", "*", "outcome.json")):
    label = (json.load(open(path)).get("gpu") or {}).get("label", "(not run on a GPU)")
    per_gpu[label] = per_gpu.get(label, 0) + 1
print("Rows per GPU in the two-GPU run: " + ", ".join(f"{k}: {v}" for k, v in sorted(per_gpu.items())))
differ = sorted(s for s in set(one) | set(two) if one.get(s) != two.get(s))
print(f"Rows whose status or check verdicts differ between the runs: {len(differ)} of {len(set(one) | set(two))}")
for student in differ:
    print(f"  {student}: one GPU {one.get(student)}; two GPUs {two.get(student)}")
sys.exit(1 if differ else 0)
PY
  for run in one two; do
    python3 grader/corpus/corpus.py check --expected "$WORK/corpus/expected.json" --results "$WORK/$run" \
      >"$WORK/$run.check" 2>&1 && echo "$run: every row as the corpus expects" ||
      { echo "$run: rows not as the corpus expects:"; tail -n 15 "$WORK/$run.check"; }
  done
}

case "$step" in
  prepare) prepare ;;
  one) grade one 0 ;;
  two) grade two 0,1 ;;
  compare) compare ;;
  all) prepare; grade one 0; grade two 0,1; compare ;;
  *) sed -n '2,17p' "$0" >&2; exit 2 ;;
esac
