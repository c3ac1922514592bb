#!/bin/sh
# A stand-in for Slurm's squeue in the grader's host tests (installed as `squeue` on PATH):
# prints $FAKE_SQUEUE_LISTS (the "%F %A" lines of the jobs still queued), or nothing.
[ -z "${FAKE_SQUEUE_LISTS:-}" ] || printf '%s\n' "$FAKE_SQUEUE_LISTS"
