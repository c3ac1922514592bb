#!/usr/bin/env bash
# Session 5, run 45: HEAD c14b201. Lab 2 reference-as-student 60 more times (run 44 saw one 12x columns_speed), then labs 3-5 until the deadline; every failing run's results kept.
export PATH=/usr/local/cuda/bin:$PATH
[ -d build ] || cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps > $OUT/configure.log 2>&1
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head; exit 1; }
s=$(date +%s)
timeout 560 python3 scripts/grader_reliability.py --build build --lab 2 --lab 4 --lab 3 --lab 5 --runs 60 --deadline 520 --output build/rel45 > $OUT/reliability.txt 2>&1
echo "reliability rc=$? ($(( $(date +%s) - s )) s)"; grep -E "^## |timing failures|deadline" build/rel45/summary.md | head -12
grep -A6 "^Failures" build/rel45/summary.md | head -30
cp build/rel45/summary.md $OUT/rel-summary.md
python3 - <<'P' > $OUT/lab2-columns.txt
import json,glob
for p in sorted(glob.glob('build/rel45/lab2/run*.json')):
    d=json.load(open(p))
    for c in d['checks']:
        if c['id'].endswith('_speed'):
            v=c.get('values',{})
            print(p.split('/')[-1], c['id'], c['verdict'], round(c.get('ratio') or 0,3), 'ref', v.get('reference_ms_p10'), v.get('reference_ms_p90'), 'stu', v.get('student_ms_p10'), v.get('student_ms_p90'), 'alone', v.get('reference_alone_ms'), 'meas', v.get('measurements'))
P
sort -k4 -n -r $OUT/lab2-columns.txt | head -5
tar czf $OUT/fails.tgz $(grep -l '"verdict": "fail"' build/rel45/*/run*.json 2>/dev/null) 2>/dev/null; ls -la $OUT/fails.tgz
