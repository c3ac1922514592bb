#!/usr/bin/env bash
# Session 5, probe 43: what the GPU host offers for cgroup v2 containment.
id; uname -r; cat /proc/self/cgroup; grep cgroup /proc/self/mountinfo
me=$(grep '^0::' /proc/self/cgroup | cut -d: -f3)
root=$(awk '$9=="cgroup2"{print $5; exit}' /proc/self/mountinfo)
echo "cgroup2 at [$root], mine [$me]"; d=$root$me; ls -la $d | head -40; cat $d/cgroup.subtree_control $d/cgroup.controllers 2>&1
mkdir $d/memlab-probe && echo "mkdir ok" && ls $d/memlab-probe | tr '\n' ' '; echo
sleep 30 & p=$!; echo $p > $d/memlab-probe/cgroup.procs && echo "move ok"; echo 1 > $d/memlab-probe/cgroup.freeze && sleep 0.05 && cat $d/memlab-probe/cgroup.events
echo 1 > $d/memlab-probe/cgroup.kill && sleep 0.05 && cat $d/memlab-probe/cgroup.events; rmdir $d/memlab-probe && echo "rmdir ok"
which systemd-run bwrap; ls -la .deps/bin; .deps/bin/bwrap --version
.deps/bin/bwrap --unshare-all --unshare-cgroup --ro-bind / / --dev /dev --proc /proc cat /proc/self/cgroup && echo "bwrap cgroupns ok"
nproc; cat /sys/fs/cgroup/cpu.max 2>/dev/null
