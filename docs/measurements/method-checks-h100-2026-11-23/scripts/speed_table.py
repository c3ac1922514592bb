"""Prints one check's verdict and figures per graded report (outcome.json files under the given folder)."""
import json, pathlib, sys
root, check = pathlib.Path(sys.argv[1]), sys.argv[2]
for path in sorted(root.glob("**/students/*/outcome.json")):
    try:
        o = json.loads(path.read_text())
    except Exception:
        continue
    for c in o.get("checks") or []:
        if c.get("id") == check:
            v = c.get("values") or {}
            print(f"{str(o.get('student'))[:52]:52} {c.get('verdict','?'):7} ratio {v.get('time_ratio', float('nan')):7.3f}"
                  f" GB/s {v.get('student_gbps', float('nan')):7.0f} ref {v.get('reference_gbps', float('nan')):6.0f}"
                  f" pts {c.get('points', '-')} | {str(c.get('detail', ''))[:90]}")
