#!/usr/bin/env bash
# Session 14, run 99 (H100): corpus 1's two rows run 98 did not give as expected, graded alone with their
# checks' details printed: red team 02b (the SIGCONT timer's control) and leaves_work_running.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1 || { tail -20 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
timeout 200 python3 grader/corpus/corpus.py test --lab lab1 --build build --work /tmp/c1 --only reference,red_team_02b-control_no_sigcont_timer,leaves_work_running --jobs 16 > $OUT/corpus1-two.txt 2>&1
echo "rc=$?"; sed -n '/^submission/,$p' $OUT/corpus1-two.txt | cut -c1-200
for f in /tmp/c1/results/students/*/outcome.json; do
  python3 -c "import json,sys; o=json.load(open(sys.argv[1])); print('  ', o['student'][:62], o['status'], o.get('detail','')[:300]); [print('     ', c['id'], c['verdict'], c.get('measured','')[:200], '|', (c.get('detail') or '')[:600]) for c in o['checks']]" $f
done
cp -r /tmp/c1/results/students $OUT/students 2>/dev/null
echo "total $(( $(date +%s) - T0 )) s"
