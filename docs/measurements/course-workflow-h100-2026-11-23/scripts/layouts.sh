# Part of a device run: the same 20 lab 1 submissions graded in today's layout (a folder per student) and as GitHub Classroom clones; the rows' totals compared.
only=reference,thread_per_element,one_block,misses_last_element,skeleton,compile_error,crash,reference_after_crash,sticky_error,reference_after_sticky_error,forbidden_thrust,forbidden_cublas,forbidden_file,forbidden_header,mentions_in_comments,huge_output,reference_after_huge_output,exits_early,all_gpu_memory,out_of_bounds
for layout in folders github; do
  s=$(date +%s)
  timeout 200 python3 grader/corpus/corpus.py test --lab lab1 --build build --work /tmp/lay-$layout --layout $layout --only "$only" --jobs 16 > $OUT/layout-$layout.txt 2>&1
  echo "layout $layout rc=$? ($(( $(date +%s) - s )) s): $(grep -c 'as expected' $OUT/layout-$layout.txt) as expected; $(grep -m1 -i 'layout' $OUT/layout-$layout.txt)"
  cp /tmp/lay-$layout/results/gradebook.csv $OUT/gradebook-$layout.csv 2>/dev/null
done
python3 - "$OUT" <<'PY'
import csv, sys
out = sys.argv[1]
books = {}
for layout in ("folders", "github"):
    with open(f"{out}/gradebook-{layout}.csv", newline="") as f:
        books[layout] = {row["student"]: row for row in csv.DictReader(f)}
a, b = books["folders"], books["github"]
print(f"rows: folders {len(a)}, github {len(b)}; same names: {sorted(a) == sorted(b)}")
print(f"{'student':44} {'folders':>8} {'github':>8}  status")
for name in sorted(set(a) | set(b)):
    ra, rb = a.get(name, {}), b.get(name, {})
    mark = "" if ra.get("status") == rb.get("status") and ra.get("total") == rb.get("total") else "  <- differs"
    print(f"{name:44} {ra.get('total','-'):>8} {rb.get('total','-'):>8}  {ra.get('status','-')} / {rb.get('status','-')}{mark}")
PY
