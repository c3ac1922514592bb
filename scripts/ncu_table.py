#!/usr/bin/env python3
"""Prints Nsight Compute counters as one table per group of launches.

    ncu_table.py <ncu --csv --page raw --print-units base log> <plan file>

The plan file is written by a lab's profile program while it runs:
    title: <heading>
    column: <metric> | <column title>             (one per column, in order)
    ratio: <metric> / <metric> | <column title>   (a column computed from two metrics)
    group: <label>                                (one per group, in launch order)
    note: <a line printed after the tables>
The program launches a marker kernel (common/memlab/profiling.cuh) before
each group, so a group is whatever the student's code launched between two
markers, one kernel or several. Kernels of the labs' own machinery (L2 flush,
random fill) are left out.
"""
import csv
import sys

MARKER = "memlab_profile_marker"
OWN_KERNELS = ("scrub_l2_kernel", "fill_random_kernel", "copy_kernel", "empty_kernel")
SCALE = {"": 1, "byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9,
         "cycle": 1, "Kcycle": 1e3, "Mcycle": 1e6,
         "nsecond": 1e-9, "usecond": 1e-6, "msecond": 1e-3, "second": 1,
         "ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1,
         "%": 1, "request": 1, "sector": 1}


def read_plan(path):
    plan = {"title": "", "columns": [], "groups": [], "notes": []}
    with open(path) as f:
        for line in f:
            key, _, value = line.rstrip("\n").partition(": ")
            if key == "title":
                plan["title"] = value
            elif key == "column":
                metric, _, title = value.partition(" | ")
                plan["columns"].append(((metric.strip(),), title.strip()))
            elif key == "ratio":
                metrics, _, title = value.partition(" | ")
                numerator, _, denominator = metrics.partition(" / ")
                plan["columns"].append(((numerator.strip(), denominator.strip()), title.strip()))
            elif key == "group":
                plan["groups"].append(value)
            elif key == "note":
                plan["notes"].append(value)
    return plan


def read_kernels(path):
    """Rows of ncu's raw CSV as dicts (name and metrics in base units), skipping ncu's own log lines."""
    with open(path, newline="") as f:
        lines = [line for line in f if line.startswith('"')]
    rows = list(csv.reader(lines))
    if len(rows) < 2:
        return []
    header, units = rows[0], rows[1]
    kernels = []
    for row in rows[2:]:
        record = dict(zip(header, row))
        values = {"name": record.get("Kernel Name", "?")}
        for column, unit in zip(header, units):
            if "__" not in column:
                continue
            try:
                number = float(record[column].replace(",", ""))
            except ValueError:
                continue
            # A unit this script does not know is kept as reported (the number is still right).
            values[column] = number * SCALE.get(unit, 1)
        kernels.append(values)
    return kernels


def split_groups(kernels):
    """Kernels between markers, one list per marker, the labs' own kernels left out."""
    groups = []
    for kernel in kernels:
        if MARKER in kernel["name"]:
            groups.append([])
        elif groups and not any(own in kernel["name"] for own in OWN_KERNELS):
            groups[-1].append(kernel)
    return groups


def human(value, metric):
    if value is None:
        return "-"
    if metric.startswith("dram__bytes"):
        for scale, unit in ((1e9, "GB"), (1e6, "MB"), (1e3, "kB")):
            if value >= scale:
                return f"{value / scale:.1f} {unit}"
        return f"{value:.0f} B"
    if metric == "gpu__time_duration.sum":
        return f"{value * 1e6:.1f} us"
    if metric.endswith(".pct") or ".pct_of_peak" in metric:
        return f"{value:.1f} %"
    if metric == "ratio":
        return f"{value:.2f}"
    return f"{value / 1e6:.2f} M" if value >= 1e4 else f"{value:.0f}"


def cell(kernel, metrics):
    if len(metrics) == 1:
        return human(kernel.get(metrics[0]), metrics[0])
    numerator, denominator = kernel.get(metrics[0]), kernel.get(metrics[1])
    if numerator is None or not denominator:
        return "-"
    return human(numerator / denominator, "ratio")


def short_name(name, width=28):
    name = name.split("(")[0]
    return name if len(name) <= width else name[:width - 3] + "..."


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    plan = read_plan(sys.argv[2])
    groups = split_groups(read_kernels(sys.argv[1]))
    if len(groups) != len(plan["groups"]):
        print(f"Expected {len(plan['groups'])} groups of launches in the profile, found {len(groups)}: "
              f"the program stopped early or ncu missed kernels. Its log is {sys.argv[1]}.")
        return 1
    print("\n" + plan["title"])
    width = max(14, *(len(title) + 2 for _, title in plan["columns"]))
    for label, kernels in zip(plan["groups"], groups):
        print("\n" + label)
        print(f"  {'kernel':<30}" + "".join(f"{title:>{width}}" for _, title in plan["columns"]))
        if not kernels:
            print("  (no kernel ran)")
        for i, k in enumerate(kernels, start=1):
            print(f"  {f'{i}. ' + short_name(k['name']):<30}" + "".join(f"{cell(k, m):>{width}}" for m, _ in plan["columns"]))
    if plan["notes"]:
        print("\n" + "\n".join(plan["notes"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
