#!/usr/bin/env python3
"""How reliable the labs' timing checks are: each lab's grader run RUNS times
with the reference solution as the student. A correct student must never fail
on timing, so every timing failure counted here is a flaw of the grader.

    make reliability [LAB=N] [RUNS=50]
    scripts/grader_reliability.py --build build [--lab N ...] [--runs 50] [--output DIR] [--deadline SECONDS]

For each lab it writes OUTPUT/labN/runK.json (the grader's results) and, when
it stops for any reason (done, the deadline, Ctrl-C), OUTPUT/summary.md:
per lab, the runs and the failures; per timed check, its failures, how often
it measured twice, and the spread of the student/reference time ratio. Lab 1's
warm-launch speedups per footprint (steps 3 and 4) are listed too. A folder of
an earlier call is summarized again with --summarize DIR.
"""
import argparse
import datetime
import glob
import json
import os
import re
import statistics
import subprocess
import sys
import time

# The instructors' grader's own pieces: its kit loader, atomic writes, tool queries.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "grader"))
from memlab_grader.cli import tool_version  # noqa: E402
from memlab_grader.grading import write_json_atomically  # noqa: E402
from memlab_grader.kit import KitError, load_kit  # noqa: E402

RUN_FILE = re.compile(r"run(\d+)\.json$")


def kit_of(build, lab):
    try:
        return load_kit(os.path.join(build, "grading", lab, "kit.json"))
    except KitError as error:
        sys.exit(f"grader_reliability: {error}: build the lab first (make reliability builds it)")


def run_lab(build, lab, runs, folder, deadline, timeout):
    """Runs lab's grader on its reference until `runs` results exist in folder
    or the deadline passes; results already there (an earlier call) count."""
    kit = kit_of(build, lab)
    os.makedirs(folder, exist_ok=True)
    have = {int(m.group(1)) for m in (RUN_FILE.search(p) for p in os.listdir(folder)) if m}
    for run in range(1, runs + 1):
        if run in have:
            continue
        if time.monotonic() > deadline:
            print(f"\n{lab}: deadline reached after {run - 1} of {runs} runs")
            return
        scratch = os.path.join(folder, f"run{run}.files")
        results = os.path.join(folder, f"run{run}.json")
        command = [kit.grader, "--student", kit.reference, "--reference", kit.reference,
                   "--results", results + ".partial", "--output-dir", scratch]
        os.makedirs(scratch, exist_ok=True)
        started = time.monotonic()
        try:
            done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout,
                                  text=True, errors="replace")
            status, output = done.returncode, done.stdout
        except subprocess.TimeoutExpired as expired:
            status, output = "timeout", expired.stdout or ""
        with open(os.path.join(scratch, "console.txt"), "w") as f:
            f.write(output if isinstance(output, str) else output.decode(errors="replace"))
        if status == 77:
            sys.exit(f"grader_reliability: {lab}'s grader found no GPU:\n{output}")
        if os.path.exists(results + ".partial"):
            with open(results + ".partial") as f:
                report = json.load(f)
        else:
            report = {"checks": []}
        report["exit_status"] = status
        report["wall_seconds"] = round(time.monotonic() - started, 2)
        write_json_atomically(results, report)
        failed = [c["id"] for c in report["checks"] if c.get("verdict") != "pass"]
        mark = "." if status == 0 and not failed else "F"
        print(f"{lab} run {run:3d}/{runs}: {mark} {report['wall_seconds']:5.1f} s"
              + (f"  failed: {', '.join(failed) or status}" if mark == "F" else ""), flush=True)


def load_runs(folder):
    reports = []
    for path in sorted(glob.glob(os.path.join(folder, "run*.json")), key=lambda p: int(RUN_FILE.search(p).group(1))):
        with open(path) as f:
            reports.append(json.load(f))
    return reports


def percentile(numbers, share):
    ordered = sorted(numbers)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


def spread(numbers, digits=3):
    if not numbers:
        return " | ".join(["-"] * 5)
    return " | ".join(f"{v:.{digits}f}" for v in (min(numbers), percentile(numbers, 0.1),
                                                    statistics.median(numbers), percentile(numbers, 0.9),
                                                    max(numbers)))


def ratio_of(check):
    """The check's student/reference time ratio, or for a timed check without
    one, the ratio it is judged by (a value named *_ratio, such as lab 1 step
    2's warm launches by the student's timer over the runner's events around
    the same kernel)."""
    if isinstance(check.get("ratio"), (int, float)):
        return check["ratio"]
    if check.get("timed"):
        for name, value in check.get("values", {}).items():
            if name.endswith("_ratio") and isinstance(value, (int, float)):
                return value
    return None


def summarize_lab(lab, reports):
    lines = [f"## {lab}", ""]
    if not reports:
        return lines + ["No runs.", ""]
    checks = {}
    for report in reports:
        for check in report["checks"]:
            checks.setdefault(check["id"], []).append(check)
    timing_failures = sum(1 for r in reports for c in r["checks"] if c.get("timed") and c["verdict"] != "pass")
    other_failures = sum(1 for r in reports for c in r["checks"] if not c.get("timed") and c["verdict"] != "pass")
    unclean = sum(1 for r in reports if r.get("exit_status") != 0 or not r.get("complete"))
    seconds = [r["wall_seconds"] for r in reports]
    lines += [f"{len(reports)} runs; **{timing_failures} timing failures**, {other_failures} other failures; "
              f"{unclean} runs did not end with exit 0 and every check run; "
              f"{statistics.median(seconds):.1f} s per run (median).", "",
              "Ratio: the student's time over the reference's (lab 1 step 2: the warm launches by the student's "
              "timer over the runner's events around the same kernel).", "",
              "| check | timed | passed | failed | measured twice | ratio min | p10 | median | p90 | max |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    for check_id, rows in checks.items():
        ratios = [r for r in map(ratio_of, rows) if r is not None]
        twice = sum(1 for c in rows for name, v in c.get("values", {}).items() if name.endswith("attempts") and v > 1)
        passed = sum(1 for c in rows if c["verdict"] == "pass")
        lines.append(f"| {check_id} | {'yes' if rows[0].get('timed') else 'no'} | {passed} | {len(rows) - passed} | "
                     f"{twice} | {spread(ratios)} |")
    speedups = {}
    for rows in checks.values():
        for c in rows:
            for name, v in c.get("values", {}).items():
                if name.startswith("speedup_at_"):
                    speedups.setdefault(name, []).append(v)
    if speedups:
        lines += ["", "Warm-launch speedup (launch 1's time over the median of launches 2-5) per footprint, "
                  "as step 3 measured it and step 4 grades it:", "",
                  "| footprint | min | p10 | median | p90 | max |", "|---|---|---|---|---|---|"]
        for name in sorted(speedups, key=lambda n: float(n[len("speedup_at_"):-len("_l2")])):
            lines.append(f"| {name[len('speedup_at_'):-len('_l2')]} x L2 | {spread(speedups[name])} |")
    shares = [c["values"]["share_of_call"] for rows in checks.values() for c in rows
              if "share_of_call" in c.get("values", {})]
    if shares:
        lines += ["", "Lab 1 step 2: the share of the call of time_launches at large footprints that the timer's "
                  "events cover (median of its rounds; the last measurement where it was measured twice):", "",
                  "| min | p10 | median | p90 | max |", "|---|---|---|---|---|", f"| {spread(shares)} |"]
    failures = [(i + 1, c) for i, r in enumerate(reports) for c in r["checks"] if c["verdict"] != "pass"]
    if failures:
        lines += ["", "Failures:", ""]
        for run, c in failures:
            detail = " ".join(c.get("detail", "").split())[:300]
            lines.append(f"- run {run}, {c['id']}: {c['verdict']}: {detail}")
    return lines + [""]


def write_summary(output, labs):
    lines = ["# Grader timing reliability: the reference graded as the student", ""]
    runs = {lab: load_runs(os.path.join(output, lab)) for lab in labs}
    facts = next((r["facts"] for reports in runs.values() for r in reports if r.get("facts")), None)
    if facts:
        gpu = tool_version(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"])
        lines += [f"{facts.get('GPU', '')}; {facts.get('CUDA', '')}; "
                  f"nvidia-smi: {gpu or 'unknown GPU (nvidia-smi failed)'}; {datetime.date.today().isoformat()}.", ""]
    lines += ["Each run is the lab's own grader (`--student` the reference build), in a process of its own, "
              "one at a time. A timed check passes when the student's median time is within the lab's limit "
              "of the reference's (measured again once before failing: \"measured twice\").", ""]
    for lab in labs:
        lines += summarize_lab(lab, runs[lab])
    text = "\n".join(lines)
    with open(os.path.join(output, "summary.md"), "w") as f:
        f.write(text)
    print("\n" + text)
    print(f"(written to {os.path.join(output, 'summary.md')})")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default="build", help="the CMake build folder (default: build)")
    parser.add_argument("--lab", type=int, action="append", help="a lab number (repeatable; default: every lab)")
    parser.add_argument("--runs", type=int, default=50, help="grader runs per lab (default: 50)")
    parser.add_argument("--output", default=None, help="results folder (default: BUILD/reliability)")
    parser.add_argument("--deadline", type=float, default=None,
                        help="start no new run after this many seconds; the summary is still written")
    parser.add_argument("--timeout", type=float, default=600, help="seconds one grader run may take (default: 600)")
    parser.add_argument("--summarize", metavar="DIR", help="only summarize an earlier call's folder")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    if args.summarize:
        labs = sorted(d for d in os.listdir(args.summarize) if os.path.isdir(os.path.join(args.summarize, d)))
        write_summary(args.summarize, labs)
        return 0
    found = sorted(os.path.basename(p) for p in glob.glob(os.path.join(args.build, "grading", "lab*")))
    labs = [f"lab{n}" for n in args.lab] if args.lab else found
    if not labs:
        parser.error(f"no lab is built in {args.build} (run cmake first)")
    output = args.output or os.path.join(args.build, "reliability")
    deadline = time.monotonic() + (args.deadline if args.deadline is not None else float("inf"))
    try:
        for lab in labs:
            run_lab(args.build, lab, args.runs, os.path.join(output, lab), deadline, args.timeout)
    except KeyboardInterrupt:
        print("\ninterrupted: summarizing the runs so far")
    write_summary(output, labs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
