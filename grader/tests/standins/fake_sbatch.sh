#!/bin/sh
# A stand-in for Slurm's sbatch in the grader's host tests (installed as `sbatch` on PATH):
# appends its command line to $FAKE_SBATCH_LOG as one JSON line, and answers a new job
# id as `sbatch --parsable` does; FAKE_SBATCH_REFUSE=text refuses, printing text.
if [ -n "${FAKE_SBATCH_REFUSE:-}" ]; then
  echo "sbatch: error: $FAKE_SBATCH_REFUSE" >&2
  exit 1
fi
python3 -c 'import json, sys; print(json.dumps(sys.argv[1:]))' "$@" >>"$FAKE_SBATCH_LOG"
wc -l <"$FAKE_SBATCH_LOG" | awk '{ print 1000 + $1 }'
