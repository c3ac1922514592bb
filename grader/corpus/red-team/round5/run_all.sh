#!/bin/sh
# Builds the round 5 stand-ins into /tmp/r5 and runs the attacks of README.md.
# Run as root from the repository root, on a host with cgroup v2 (the lab
# grader's Cgroup must be usable). No GPU. The nsdelegate rows remount the
# cgroup2 file system with and without nsdelegate: only on a scratch machine.
set -u
R=grader/corpus/red-team/round5
mkdir -p /tmp/r5
g++ -std=c++17 -O1 -o /tmp/r5/student $R/student.cpp -lpthread
g++ -std=c++17 -O1 -o /tmp/r5/probe $R/probe.cpp
for p in harness review; do
  g++ -std=c++17 -O1 -I common -o /tmp/r5/$p $R/$p.cpp common/memlab/grading/cgroup.cpp \
      common/memlab/grading/freezer.cpp -lpthread
done
# The sandbox exactly as grade.py builds it (sandbox.py), and the proposed fix.
python3 - <<'EOF'
import sys; sys.path.insert(0, 'grader')
from memlab_grader.sandbox import bwrap_words, write_words
w = bwrap_words('/usr/bin/bwrap', hide=['/work/main', '/root', '/home'],
                expose=['/tmp/r5/student', '/tmp/r5/probe'], devices=[])
write_words('/tmp/r5/words', w)
i = w.index('--unshare-user'); w = w[:i + 1] + ['--disable-userns'] + w[i + 1:]
j = w.index('--proc'); w = w[:j] + ['--tmpfs', '/sys/fs/cgroup'] + w[j:]
write_words('/tmp/r5/words_fixed', w)
EOF
H=/tmp/r5/harness; S=/tmp/r5/student; W="--words /tmp/r5/words"
run() { echo "===== $*"; timeout 120 "$@" </dev/null 2>&1 | grep -v 'mapped\|self_thaw: '; }
run $H $W --rounds 1 -- /tmp/r5/probe
run $H $W --rounds 2 --ref-call -- $S tick
run $H $W --rounds 3 -- $S clone_into
run $H $W --rounds 2 --ref-call -- $S clone_into_ref
run $H $W --rounds 2 -- $S nested
run $H $W --rounds 5 -- $S fair_waits
run $H $W --rounds 3 -- $S kernel_busy
run $H $W --rounds 1 --call-ms 30000 -- $S slow_exit 64 2
run $H --rounds 2 --ref-call -- $S escape_procs
run $H --rounds 2 --ref-call -- $S kill_ref
run $H --rounds 2 --ref-call -- $S thaw_ref
run $H --rounds 3 -- $S self_thaw
run $H --words /tmp/r5/words_fixed --rounds 2 --ref-call -- $S clone_into
run $H --words /tmp/r5/words_fixed --rounds 2 -- $S nested
run /tmp/r5/review collision
# Left-over cgroups of these runs (nested, slow_exit) are listed by the harness;
# remove them with: find /sys/fs/cgroup/.../memlab-PID-student-2 -depth -type d -exec rmdir {} +
