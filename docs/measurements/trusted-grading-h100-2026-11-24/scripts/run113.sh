#!/usr/bin/env bash
# Session 16, run 113 (H100): the spread of step 2's excess for the timers nearest the window's
# edges, 8 copies each: a fair timer that synchronises first (red team 06), fair chained events and
# fork-join events, and three host clocks that wait out the hold (rounds 18/03, 19/03, 26/01).
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
only=$(python3 -c "
import sys; sys.path.insert(0,'grader/corpus'); sys.argv=['x']
import corpus
keys = ('red_team_06', 'round6_02', 'round18_08', 'round18_03', 'round19_03', 'round26_01')
print(','.join(e.name for e in corpus.red_team_entries('lab1') if any(k in e.name for k in keys)))")
s=$(date +%s); timeout 330 python3 grader/corpus/corpus.py test --lab lab1 --build build --work /tmp/c1 --only "$only" --copies 8 --jobs 16 > $OUT/corpus1-edges.txt 2>&1
echo "== corpus 1, 8 copies of 6 timers: rc=$? ($(( $(date +%s) - s )) s)"
python3 .devrun/step2_table.py /tmp/c1 > $OUT/corpus1-edges-table.txt
python3 - <<'PY'
import os, re, statistics, collections
rows = open(os.environ['OUT'] + '/corpus1-edges-table.txt').read().splitlines()
by = collections.defaultdict(list)
for r in rows:
    name = re.sub(r'^[0-9]+-', '', r.split()[0])
    name = re.sub(r'-copy[0-9]+$', '', name)
    m = re.search(r' excess (-?[0-9.]+) ref-excess (-?[0-9.]+) short (-?[0-9.]+)', r)
    if m: by[name[:50]].append((float(m.group(1)) - float(m.group(2)), float(m.group(3)), r.split()[1]))
for name, xs in sorted(by.items()):
    d = sorted(x[0] for x in xs); s = sorted(x[1] for x in xs)
    print(f"{name:50} n={len(xs)} excess-ref min {d[0]:+.2f} median {statistics.median(d):+.2f} max {d[-1]:+.2f} | shortfall max {s[-1]:+.2f} | verdicts {' '.join(x[2] for x in xs)}")
PY
echo "total $(( $(date +%s) - T0 )) s"
