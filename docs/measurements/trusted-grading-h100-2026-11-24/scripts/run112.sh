#!/usr/bin/env bash
# Session 16, run 112 (H100): lab 1 step 2 after red team 26: gaps inside a launch capped at 1 us in the
# recorded spans, every launch's excess bounded below by the reference timer's; corpus subset with round 26,
# lab 1's GPU tests, and make reliability for lab 1 (50 runs).
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
s=$(date +%s); timeout 260 python3 grader/corpus/corpus.py test --lab lab1 --build build --work /tmp/c1 --only "$only1" --jobs 16 > $OUT/corpus1-step2.txt 2>&1
echo "== corpus 1, step 2 subset: rc=$? ($(( $(date +%s) - s )) s)"; sed -n '/^submission/,$p' $OUT/corpus1-step2.txt | cut -c1-160
python3 .devrun/step2_table.py /tmp/c1 | tee $OUT/corpus1-step2-table.txt | cut -c1-330
s=$(date +%s); timeout 120 ctest --test-dir build -L gpu -R '^lab1\.' -j1 --output-on-failure > $OUT/ctest-lab1.log 2>&1
echo "lab 1 GPU tests rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/ctest-lab1.log)"; grep -E "\*\*\*Failed|Failed  |Timeout" $OUT/ctest-lab1.log | head
s=$(date +%s); timeout 200 make reliability LAB=1 RUNS=50 > $OUT/reliability-lab1.log 2>&1
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
