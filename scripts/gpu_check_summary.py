#!/usr/bin/env python3
"""Summarises a `make gpu-check` folder: each GPU test's outcome over the runs,
and the figures the graders measured, with their spread. Prints Markdown and
writes it to summary.md in the same folder.

    gpu_check_summary.py <build>/gpu-check
"""
import glob
import json
import os
import re
import statistics
import sys

TEST_LINE = re.compile(r"Test +#\d+: (\S+) \.+\** *(Passed|Failed|Skipped|\*\*\*Failed|Not Run|\*\*\*Skipped)")


def outcomes(folder):
    table = {}
    for log in sorted(glob.glob(os.path.join(folder, "run*.log"))):
        with open(log) as f:
            for line in f:
                match = TEST_LINE.search(line)
                if match:
                    name, result = match.group(1), match.group(2).strip("*")
                    table.setdefault(name, []).append(result)
    return table


def values(folder):
    """{test: {"check.value": [one number per run]}} from every run's results."""
    collected = {}
    for path in sorted(glob.glob(os.path.join(folder, "run*", "*.json"))):
        test = os.path.basename(path)[:-5]
        with open(path) as f:
            report = json.load(f)
        for check in report.get("checks", []):
            for name, number in check.get("values", {}).items():
                if number is not None:
                    collected.setdefault(test, {}).setdefault(f"{check['id']}.{name}", []).append(number)
    return collected


def spread(numbers):
    if len(numbers) == 1:
        return f"{numbers[0]:.4g}"
    return (f"{statistics.median(numbers):.4g} (min {min(numbers):.4g}, max {max(numbers):.4g}, "
            f"n={len(numbers)})")


def main():
    folder = sys.argv[1]
    lines = []
    gpu = open(os.path.join(folder, "gpu.txt")).read().strip() if os.path.exists(
        os.path.join(folder, "gpu.txt")) else "unknown"
    lines += [f"# GPU check on {gpu}", "", "| test | passed | failed | skipped |", "|---|---|---|---|"]
    for name, results in sorted(outcomes(folder).items()):
        lines.append(f"| {name} | {results.count('Passed')} | {results.count('Failed')} | "
                     f"{results.count('Skipped')} |")
    for test, numbers in sorted(values(folder).items()):
        lines += ["", f"## {test}: measured values (median, min, max over runs)", "", "| value | measured |",
                  "|---|---|"]
        for name, series in sorted(numbers.items()):
            lines.append(f"| {name} | {spread(series)} |")
    results = [r for runs in outcomes(folder).values() for r in runs]
    if not results or all(r == "Skipped" for r in results):
        verdict, status = "No GPU test ran: they were all skipped (is there a GPU?).", 2
    elif "Failed" in results:
        verdict, status = f"{results.count('Failed')} of {len(results)} test runs FAILED.", 1
    else:
        verdict, status = f"All {len(results)} test runs passed.", 0
    lines += ["", verdict]
    text = "\n".join(lines) + "\n"
    with open(os.path.join(folder, "summary.md"), "w") as f:
        f.write(text)
    print(text)
    return status


if __name__ == "__main__":
    sys.exit(main())
