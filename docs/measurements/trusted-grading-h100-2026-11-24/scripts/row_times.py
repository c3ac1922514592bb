"""Sums grade.py's per-row GPU times by status from its console output: python3 row_times.py grade-100.txt"""
import re, sys, collections
rows = collections.defaultdict(list)
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    m = re.match(r"\s+\[\s*\d+/\d+\]\s+(\S+)\s+(.+?)\s+\d+(?:\.\d+)? / \d+\s+\((\d+(?:\.\d+)?) s\)", line)
    if m:
        rows[m.group(2)].append(float(m.group(3)))
for status, times in sorted(rows.items()):
    print(f"{status:22} {len(times):3d} rows {sum(times):7.1f} s ({sum(times) / len(times):.2f} s each)")
print(f"{'all GPU rows':22} {sum(map(len, rows.values())):3d} rows {sum(map(sum, rows.values())):7.1f} s")
