#!/usr/bin/env bash
# Session 15, run 107 (H100): after the review's mends (one lookup of CUPTI callback lists; step 4 reads the
# launches once): lab 4's GPU tests and corpus 4's entries of rounds 23-25 with the reference.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
only4=$(python3 -c "
import sys; sys.path.insert(0,'grader/corpus'); sys.argv=['x']
import corpus
print(','.join(['reference'] + [e.name for e in corpus.red_team_entries('lab4') if any(r in e.name for r in ('round23', 'round24', 'round25'))]))")
s=$(date +%s); timeout 160 python3 grader/corpus/corpus.py test --lab lab4 --build build --work /tmp/c4 --only "$only4" --jobs 16 > $OUT/corpus4-touched.txt 2>&1
echo "== corpus 4, rounds 23-25: rc=$? ($(( $(date +%s) - s )) s)"; sed -n '/^submission/,$p' $OUT/corpus4-touched.txt | cut -c1-200
s=$(date +%s); timeout 150 ctest --test-dir build -L gpu -R '^lab4\.' -j1 --output-on-failure > $OUT/ctest-lab4.log 2>&1
echo "lab 4 GPU tests rc=$? ($(( $(date +%s) - s )) s): $(grep -E 'tests passed' $OUT/ctest-lab4.log)"; grep -E "\*\*\*Failed|Failed  |Timeout" $OUT/ctest-lab4.log | head
echo "total $(( $(date +%s) - T0 )) s"
