#!/bin/sh
# Builds the round 5 stand-ins into /tmp/r5 and runs the attacks of README.md,
# against the code as it is now (the rerun against the fixes: the harness
# follows the fixed end_runner, kill_all(call limit) and a 5 s freeze patience).
# Run as root from the repository root, on a host with cgroup v2 (the lab
# grader's Cgroup must be usable). No GPU. The nsdelegate rows of the first
# round remounted the cgroup2 file system by hand: only on a scratch machine.
set -u
R=grader/corpus/red-team/round5
mkdir -p /tmp/r5
g++ -std=c++17 -O1 -o /tmp/r5/student $R/student.cpp -lpthread
g++ -std=c++17 -O1 -o /tmp/r5/probe $R/probe.cpp
g++ -std=c++17 -O1 -o /tmp/r5/probe2 $R/probe2.cpp -lpthread
for p in harness review; do
  g++ -std=c++17 -O1 -I common -o /tmp/r5/$p $R/$p.cpp common/memlab/grading/cgroup.cpp \
      common/memlab/grading/freezer.cpp -lpthread
done
# The sandbox exactly as grade.py builds it now (sandbox.py: --disable-userns
# where bwrap has it, a tmpfs over every cgroup mount); the same as an older
# bubblewrap (< 0.8, no --disable-userns) gets it; the sandbox before the fixes.
python3 - <<'PYEOF'
import sys; sys.path.insert(0, 'grader')
from memlab_grader.sandbox import bwrap_words, write_words, find_bwrap
kw = dict(hide=['/work/main', '/root', '/home'],
          expose=['/tmp/r5/student', '/tmp/r5/probe', '/tmp/r5/probe2'], devices=[])
b = find_bwrap('.')
write_words('/tmp/r5/words', bwrap_words(b, **kw))
write_words('/tmp/r5/words_oldbwrap', bwrap_words(b, disable_userns=False, **kw))
write_words('/tmp/r5/words_prefix', bwrap_words(b, disable_userns=False, cgroups=[], **kw))
PYEOF
H=/tmp/r5/harness; S=/tmp/r5/student; W="--words /tmp/r5/words"; CG=/sys/fs/cgroup/unified
run() { echo "===== $*"; timeout 120 "$@" </dev/null 2>&1 | grep -v 'mapped\|self_thaw: '; }
# ---- the rows of the first round ----
run $H $W --rounds 1 -- /tmp/r5/probe
run $H $W --rounds 2 --ref-call -- $S tick
run $H $W --rounds 3 -- $S clone_into
run $H $W --rounds 2 --ref-call -- $S clone_into_ref
run $H $W --rounds 2 -- $S nested
run $H $W --rounds 5 -- $S fair_waits
run $H $W --rounds 3 -- $S kernel_busy
run $H $W --rounds 3 --patience 1 -- $S kernel_busy
run $H $W --rounds 1 --call-ms 30000 -- $S slow_exit 64 2
run $H --rounds 2 --ref-call -- $S escape_procs
run $H --rounds 2 --ref-call -- $S kill_ref
run $H --rounds 2 --ref-call -- $S thaw_ref
run $H --rounds 3 -- $S self_thaw
run /tmp/r5/review collision
rmdir $CG/memlab-*-student-1 $CG/memlab-*-x 2>/dev/null
# The sandbox before the fixes, for comparison.
run $H --words /tmp/r5/words_prefix --rounds 2 --ref-call -- $S clone_into
# 10: the grader killed while its runner is frozen (no sandbox); a new grader's remove_stale.
$H --die-frozen --rounds 1 -- $S fair_waits >/tmp/r5/die.log 2>&1 </dev/null; cat /tmp/r5/die.log
for d in $CG/memlab-*; do echo "$d: $(tr '\n' ' ' <$d/cgroup.events)"; done
D=$(ls -d $CG/memlab-*-student-2 | head -1); run /tmp/r5/review stale $D
rmdir $CG/memlab-*-reference-1 2>/dev/null
# ---- rerun against the fixes: new rows ----
# Every way back to a cgroup file system, from the fixed sandbox.
run $H $W --rounds 1 -- /tmp/r5/probe2 reach
# An older bubblewrap: nested namespaces still work; the leftovers are now removed.
run $H --words /tmp/r5/words_oldbwrap --rounds 2 --kill-wait 20 -- $S nested 2000
# ... but not a chain deeper than PATH_MAX: each level above it waits 1 s
# (about 2,000 s in all), cut here at 45 s; a later grader's remove_stale the same.
timeout 45 $H --words /tmp/r5/words_oldbwrap --rounds 1 --call-ms 5000 --kill-wait 20 -- /tmp/r5/probe2 deep 2100 \
  </dev/null 2>&1 | grep -v mapped
D=$(ls -d $CG/memlab-*-student-2 2>/dev/null | head -1)
if [ -n "$D" ]; then
  echo "===== a later grader's remove_stale, cut at 20 s"
  timeout 20 strace -f -e trace=rmdir -o /tmp/r5/stale.strace /tmp/r5/review stale $D
  echo "rmdir calls in 20 s: $(grep -c rmdir /tmp/r5/stale.strace), ENAMETOOLONG: $(grep -c 'name too long' /tmp/r5/stale.strace)"
  python3 - "$D" <<'PYEOF'
import os, sys
sys.setrecursionlimit(100000)
def rm(parent, name):
    fd = os.open(name, os.O_RDONLY, dir_fd=parent)
    for entry in os.listdir(fd):
        if '.' not in entry:
            rm(fd, entry)
    os.close(fd)
    os.rmdir(name, dir_fd=parent)
rm(os.open(os.path.dirname(sys.argv[1]), os.O_RDONLY), os.path.basename(sys.argv[1]))
print("the deep chain was removed by hand (fd-relative)")
PYEOF
  rmdir $CG/memlab-*-reference-1 2>/dev/null
fi
# 12: remove_stale from another PID namespace now kills a live grader's runners.
$H --rounds 4 --call-ms 1000 --kill-wait 10 -- $S tick >/tmp/r5/ns.log 2>&1 </dev/null &
sleep 1.5; D=$(ls -d $CG/memlab-*-student-2 | head -1)
run /tmp/r5/review stale $D
run unshare -pf --mount-proc /tmp/r5/review stale $D
wait; cat /tmp/r5/ns.log
# 13: a pid used again (a PID namespace per grading run makes it certain): the grader stops.
unshare -pf --mount-proc sh -c '/tmp/r5/review crash' 2>&1
run unshare -pf --mount-proc sh -c '/tmp/r5/review start; true'
rmdir $CG/memlab-2-reference-1
run unshare -pf --mount-proc sh -c '/tmp/r5/review start; true'
rmdir $CG/memlab-2-* 2>/dev/null
# A fair thread in uninterruptible sleep (writeback): frozen once the sleep ends.
run $H --rounds 6 --call-ms 1500 --kill-wait 20 -- /tmp/r5/probe2 dsleep 1024
