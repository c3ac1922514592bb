#!/usr/bin/env bash
# Session 16, run 114 (H100): lab 1 step 2 with the runner's check that time_launches launched before the hold
# was over, bounds of +2.0 us (warm) and -1.5 us (each launch) around the reference timer's excess: corpus subset,
# 6 copies each of the fair timers nearest the edges, lab 1's GPU tests, make reliability for lab 1 (50 runs).
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
only1=$(python3 -c "
import sys; sys.path.insert(0,'grader/corpus'); sys.argv=['x']
import corpus
names = ['reference', 'thread_per_element', 'skips_repeated_calls', 'slow_on_own_stream']
names += [e.name for e in corpus.red_team_entries('lab1') if any(r in e.name for r in ('round18', 'round19', 'round6_0', 'round22', 'round3_03', 'red_team_06', 'round17_04', 'round26'))]
print(','.join(names))")
s=$(date +%s); timeout 200 python3 grader/corpus/corpus.py test --lab lab1 --build build --work /tmp/c1 --only "$only1" --jobs 16 > $OUT/corpus1-step2.txt 2>&1
echo "== corpus 1, step 2 subset: rc=$? ($(( $(date +%s) - s )) s)"; sed -n '/^submission/,$p' $OUT/corpus1-step2.txt | cut -c1-160
python3 .devrun/step2_table.py /tmp/c1 | tee $OUT/corpus1-step2-table.txt | cut -c1-330
s=$(date +%s); edges=$(python3 -c "
import sys; sys.path.insert(0,'grader/corpus'); sys.argv=['x']
import corpus
keys = ('round6_02', 'round18_08', 'round18_07')
print(','.join(['reference'] + [e.name for e in corpus.red_team_entries('lab1') if any(k in e.name for k in keys)]))")
timeout 150 python3 grader/corpus/corpus.py test --lab lab1 --build build --work /tmp/c1e --only "$edges" --copies 5 --jobs 16 > $OUT/corpus1-edges.txt 2>&1
echo "== corpus 1, 5 copies of 4 fair timers: rc=$? ($(( $(date +%s) - s )) s)"; grep -c "as expected" $OUT/corpus1-edges.txt; grep -E "expected [0-9]" $OUT/corpus1-edges.txt | cut -c1-160
python3 .devrun/step2_table.py /tmp/c1e > $OUT/corpus1-edges-table.txt; awk '{print $1, $2}' $OUT/corpus1-edges-table.txt | sort | uniq -c | sort -rn | head -3
python3 - <<'PY'
import os, re
rows = open(os.environ['OUT'] + '/corpus1-edges-table.txt').read().splitlines()
d = [float(m.group(1)) - float(m.group(2)) for r in rows for m in [re.search(r' excess (-?[0-9.]+) ref-excess (-?[0-9.]+)', r)] if m]
s = [float(m.group(1)) for r in rows for m in [re.search(r' short (-?[0-9.]+)', r)] if m]
print(f"edges: excess over the reference's {min(d):+.2f} to {max(d):+.2f}; worst launch shortfall {max(s):+.2f}")
PY
s=$(date +%s); timeout 120 ctest --test-dir build -L gpu -R '^lab1\.' -j1 --output-on-failure > $OUT/ctest-lab1.log 2>&1
echo "lab 1 GPU tests rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/ctest-lab1.log)"; grep -E "\*\*\*Failed|Failed  |Timeout" $OUT/ctest-lab1.log | head
s=$(date +%s); timeout 190 make reliability LAB=1 RUNS=50 > $OUT/reliability-lab1.log 2>&1
echo "== reliability lab 1: rc=$? ($(( $(date +%s) - s )) s)"; tail -12 $OUT/reliability-lab1.log
python3 .devrun/step2_table.py build/reliability > $OUT/reliability-step2-table.txt
python3 - <<'PY'
import re, statistics
rows = open('/dev/stdin').read() if False else open(__import__('os').environ['OUT'] + '/reliability-step2-table.txt').read().splitlines()
def col(key):
    out = []
    for r in rows:
        m = re.search(' ' + key + r' (-?[0-9.]+)', r)
        if m: out.append(float(m.group(1)))
    return out
for key in ('excess', 'ref-excess', 'short'):
    xs = col(key)
    if xs: print(f"reference x{len(xs)} {key}: min {min(xs):.3f} median {statistics.median(xs):.3f} max {max(xs):.3f}")
xs = [float(m.group(1)) for r in rows for m in [re.search(r'large theirs/runner ([0-9.]+)', r)] if m]
if xs: print(f"reference large theirs/runner: min {min(xs):.3f} median {statistics.median(xs):.3f} max {max(xs):.3f}")
PY
echo "total $(( $(date +%s) - T0 )) s"
