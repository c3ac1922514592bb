"""Prints step 2's figures per graded lab 1 report (outcome.json or runK.json files under the given folder)."""
import json, pathlib, statistics, sys
root = pathlib.Path(sys.argv[1])
for path in sorted(list(root.glob("**/students/*/outcome.json")) + list(root.glob("**/run*.json"))):
    try:
        o = json.loads(path.read_text())
    except Exception:
        continue
    name = o.get("student") or path.stem
    for c in o.get("checks") or []:
        if "timer" in str(c.get("id", "")) and c.get("values"):
            v = c["values"]
            g = lambda k: float(v.get(k, float("nan")))
            launches = lambda who: [g(f"launch{i}_{who}_ms") * 1000 for i in range(1, 6)]
            t, k = launches("student"), launches("own_kernel")
            warm = lambda xs: statistics.median(xs[1:])
            print(f"{name[:44]:44} {c.get('verdict','?'):4} x theirs {g('student_warm_speedup'):.2f} own {g('own_kernel_warm_speedup'):.2f}"
                  f" ref {g('reference_warm_speedup'):.2f} least {g('least_warm_speedup'):.2f} share {g('share_of_call'):.2f} f1 {g('large_first_over_rest'):.2f}"
                  f" | us cold {t[0]:.1f}/{k[0]:.1f} warm {warm(t):.1f}/{warm(k):.1f}"
                  f" excess {g('their_excess_us'):.2f} ref-excess {g('reference_excess_us'):.2f} short {g('launch_excess_shortfall_us'):.2f} rec {g('kernel_records'):.0f}"
                  f" other-calls {1000 * g('runner_other_calls_warm_ms'):.1f}"
                  f" | large theirs/runner {g('large_reported_over_runner'):.3f} rounds " + " ".join(f"{g(f'large_reported_over_runner_round{r}'):.3f}" for r in range(1, 6)))
