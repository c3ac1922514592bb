"""Prints one check's verdict and figures from each results.json under the given folder (GPU tests)."""
import json, pathlib, sys
root, check = pathlib.Path(sys.argv[1]), sys.argv[2]
for path in sorted(root.glob("*/results.json")):
    o = json.loads(path.read_text())
    for c in o.get("checks") or []:
        if c.get("id") == check:
            v = c.get("values") or {}
            print(f"{path.parent.name[:48]:48} {c.get('verdict','?'):7} ratio {v.get('time_ratio', float('nan')):8.3f}"
                  f" GB/s {v.get('student_gbps', float('nan')):7.0f} ref {v.get('reference_gbps', float('nan')):6.0f}"
                  f" | {str(c.get('detail', ''))[:110]}")
