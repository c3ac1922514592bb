#!/usr/bin/env bash
# A stand-in for a lab grader, for testing scripts/expect_verdicts.py without a
# GPU. The --student argument names the behaviour: pass, fail, nogpu, crash.
set -eu
student="" results="" outdir=""
while [ $# -gt 0 ]; do
  case "$1" in
    --student) student=$2; shift 2 ;;
    --results) results=$2; shift 2 ;;
    --output-dir) outdir=$2; shift 2 ;;
    *) echo "fake grader: unknown option $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$outdir"
write() {  # write <verdict of step1.correct> <verdict of step1.speed> <steps done>
  cat >"$results" <<JSON
{"lab":"fake","steps":1,"steps_requested":1,"steps_done":$3,"checks":[
 {"step":1,"id":"step1.correct","verdict":"$1","detail":"a; b"},
 {"step":1,"id":"step1.speed","verdict":"$2","detail":""}]}
JSON
}
case "$student" in
  pass) write pass pass 1; exit 0 ;;
  fail) write fail blocked 0; exit 1 ;;
  nogpu) echo "no GPU here"; exit 77 ;;
  crash) kill -SEGV $$ ;;
  *) echo "fake grader: unknown behaviour $student" >&2; exit 2 ;;
esac
