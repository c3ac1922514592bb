#!/usr/bin/env python3
"""Prints Nsight Compute counters as one table per group of launches.

    ncu_table.py <ncu --csv --page raw --print-units base log> <plan file>

The plan file is written by a lab's profile program:
    title: <heading>
    group: <number of launches> | <label>     (one per group, in launch order)
    note: <a line printed after the tables>
Kernels the labs' own machinery launches (L2 flush, random fill) are left out.
"""
import csv
import sys

OWN_KERNELS = ("scrub_l2_kernel", "fill_random_kernel", "copy_kernel", "empty_kernel")
SCALE = {"": 1, "byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9,
         "cycle": 1, "Kcycle": 1e3, "Mcycle": 1e6,
         "nsecond": 1e-9, "usecond": 1e-6, "msecond": 1e-3, "second": 1,
         "ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}
COLUMNS = [("dram__bytes.sum", "DRAM total"), ("dram__bytes_read.sum", "DRAM read"),
           ("dram__bytes_write.sum", "DRAM write"),
           ("sm__cycles_elapsed.sum", "SM cycles"), ("gpu__time_duration.sum", "time")]


def read_plan(path):
    plan = {"title": "", "groups": [], "notes": []}
    with open(path) as f:
        for line in f:
            key, _, value = line.rstrip("\n").partition(": ")
            if key == "title":
                plan["title"] = value
            elif key == "group":
                count, _, label = value.partition(" | ")
                plan["groups"].append((int(count), label))
            elif key == "note":
                plan["notes"].append(value)
    return plan


def read_kernels(path):
    """Rows of ncu's raw CSV as dicts of floats, skipping ncu's own log lines."""
    with open(path, newline="") as f:
        lines = [line for line in f if line.startswith('"')]
    rows = list(csv.reader(lines))
    if len(rows) < 2:
        return []
    header, units = rows[0], rows[1]
    kernels = []
    for row in rows[2:]:
        record = dict(zip(header, row))
        name = record.get("Kernel Name", "?")
        if any(own in name for own in OWN_KERNELS):
            continue
        values = {"name": name}
        for metric, _ in COLUMNS:
            if metric in record:
                unit = units[header.index(metric)]
                if unit not in SCALE:
                    sys.exit(f"ncu reported {metric} in '{unit}', a unit this script does not know")
                values[metric] = float(record[metric].replace(",", "")) * SCALE[unit]
        kernels.append(values)
    return kernels


def human(value, metric):
    if metric.startswith("dram__bytes"):
        for scale, unit in ((1e9, "GB"), (1e6, "MB"), (1e3, "kB")):
            if value >= scale:
                return f"{value / scale:.1f} {unit}"
        return f"{value:.0f} B"
    if metric == "gpu__time_duration.sum":
        return f"{value * 1e6:.1f} us"
    return f"{value / 1e6:.2f} M"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    plan = read_plan(sys.argv[2])
    kernels = read_kernels(sys.argv[1])
    expected = sum(count for count, _ in plan["groups"])
    if len(kernels) != expected:
        print(f"Expected {expected} kernels of yours in the profile, found {len(kernels)}: "
              f"the table would mislead, so here is the list instead.")
        for k in kernels:
            print("  " + k["name"] + "  " + "  ".join(human(k.get(m, 0), m) for m, _ in COLUMNS))
        return 1
    print("\n" + plan["title"])
    at = 0
    for count, label in plan["groups"]:
        print("\n" + label)
        print(f"  {'launch':<8}" + "".join(f"{title:>14}" for _, title in COLUMNS))
        for i, k in enumerate(kernels[at:at + count], start=1):
            print(f"  {i:<8}" + "".join(f"{human(k.get(m, 0), m):>14}" for m, _ in COLUMNS))
        at += count
    if plan["notes"]:
        print("\n" + "\n".join(plan["notes"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
