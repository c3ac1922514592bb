"""Prints lab 1 step 2's share of the call per results file given (runK.json or a --results file)."""
import json, sys, statistics
shares = []
for path in sys.argv[1:]:
    try:
        o = json.load(open(path))
    except Exception as e:
        print(f"{path}: unreadable ({e})"); continue
    for c in o.get("checks") or []:
        if c.get("id") == "step2.timer":
            v = c.get("values", {})
            s = v.get("share_of_call", float("nan"))
            shares.append(s)
            msg = (c.get("message") or c.get("failure") or "")[:220].replace("\n", " | ")
            print(f"{path.split('/')[-1]:28} {c.get('verdict'):5} share {s:.3f} first/rest {v.get('large_first_over_rest', float('nan')):.3f} {msg if c.get('verdict') != 'pass' else ''}")
if shares:
    s = sorted(shares)
    print(f"shares: n={len(s)} min {s[0]:.3f} p10 {s[len(s)//10]:.3f} median {statistics.median(s):.3f} max {s[-1]:.3f}")
