#!/usr/bin/env python3
"""Grades one build of a lab and checks the verdicts in the grader's JSON results:
what every GPU grader test of the project runs (cmake/Labs.cmake).

    scripts/expect_verdicts.py --grader PROGRAM --build LIB.so --output-dir DIR --expect ID=VERDICT,...

--expect all=pass means every check passes and every step is done; otherwise
each listed check must have run and reached the listed verdict. Exit status: 0
as expected, 1 not, 77 no usable GPU (CTest's SKIP_RETURN_CODE: skipped).
"""
import argparse
import json
import os
import subprocess
import sys

NO_GPU = 77


def expectations(text):
    """'a=pass,b=fail' as [('a', 'pass'), ('b', 'fail')]; a malformed one ends the script."""
    pairs = []
    for item in text.split(","):
        check, sign, verdict = item.partition("=")
        if not sign or not check or not verdict:
            sys.exit(f"bad expectation '{item}': write <check id>=<verdict>")
        pairs.append((check, verdict))
    return pairs


def problems_with(results, wanted):
    """What differs between the grader's @p results and the @p wanted verdicts."""
    verdicts = {check["id"]: check["verdict"] for check in results.get("checks", [])}
    problems = []
    for check, verdict in wanted:
        if check == "all":
            problems += [f"{id_}: {got}, expected {verdict}" for id_, got in verdicts.items() if got != verdict]
            if verdict == "pass" and results.get("steps_done") != results.get("steps"):
                problems.append(f"{results.get('steps_done')} of {results.get('steps')} steps done, expected all")
        elif check not in verdicts:
            problems.append(f"{check}: did not run, expected {verdict}")
        elif verdicts[check] != verdict:
            problems.append(f"{check}: {verdicts[check]}, expected {verdict}")
        else:
            print(f"{check}: {verdict}, as expected")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--grader", required=True)
    parser.add_argument("--build", required=True)
    parser.add_argument("--output-dir", required=True)
    parser.add_argument("--expect", required=True)
    args = parser.parse_args()
    wanted = expectations(args.expect)

    results_path = os.path.join(args.output_dir, "results.json")
    os.makedirs(args.output_dir, exist_ok=True)
    if os.path.exists(results_path):
        os.remove(results_path)
    status = subprocess.call([args.grader, "--student", args.build, "--results", results_path,
                              "--output-dir", args.output_dir])
    if status == NO_GPU:
        print("skipped: the grader found no usable GPU")
        return NO_GPU
    if status not in (0, 1):
        print(f"the grader could not grade {args.build} (exit status {status})")
        return 1
    if not os.path.exists(results_path):
        print(f"the grader wrote no results to {results_path}")
        return 1
    with open(results_path, encoding="utf-8") as handle:
        problems = problems_with(json.load(handle), wanted)
    if problems:
        print("verdicts differ from what was expected:\n  " + "\n  ".join(problems))
        return 1
    print(f"all expected verdicts reached ({args.expect})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
