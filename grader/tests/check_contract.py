"""The instructors' grader's copies of the lab graders' contract agree with it.

Each lab grader prints its contract (--contract: its exit codes and its pass
limit), which are written once, in C++. This checks, for every lab the build
made: grading.py's exit codes are those; every timed check of the lab's default
points table is full at that pass limit; and the table's checks cover the lab's
steps and no others. Run by CTest as grader.contract (no GPU needed).
Usage: check_contract.py --build BUILD
"""
import argparse
import glob
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from memlab_grader import grading, points  # noqa: E402
from memlab_grader.kit import load_kit  # noqa: E402

EXIT_CODES = {"all_passed": grading.GRADER_ALL_PASSED, "some_failed": grading.GRADER_SOME_FAILED,
              "bad_input": grading.GRADER_BAD_INPUT, "gpu_failed": grading.GRADER_GPU_FAILED,
              "gpu_lost": grading.GRADER_GPU_LOST, "student_unloadable": grading.GRADER_STUDENT_UNLOADABLE,
              "no_gpu": grading.GRADER_NO_GPU}


def problems_of(kit_path: str) -> list:
    kit = load_kit(kit_path)
    contract = json.loads(subprocess.run([kit.grader, "--contract"], check=True, capture_output=True,
                                         text=True).stdout)
    problems = [f"{kit.lab}: grading.py's exit code {name} is {EXIT_CODES.get(name)}, the lab grader's {code}"
                for name, code in contract["exit_codes"].items() if EXIT_CODES.get(name) != code]
    if set(EXIT_CODES) != set(contract["exit_codes"]):
        problems.append(f"{kit.lab}: exit codes named differently: {sorted(EXIT_CODES)} against "
                        f"{sorted(contract['exit_codes'])}")
    table = points.read_table(kit.points)
    for rule in table.values():
        if rule.timed and rule.full_at != contract["speed_limit"]:
            problems.append(f"{kit.lab}: {rule.check} is full at {rule.full_at:g}x in {kit.points}, "
                            f"but the lab's pass limit is {contract['speed_limit']:g}x")
    steps = {int(check.split(".")[0][4:]) for check in table}
    if steps != set(range(1, contract["steps"] + 1)):
        problems.append(f"{kit.lab}: {kit.points} has checks of steps {sorted(steps)}, the lab has "
                        f"{contract['steps']}")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", required=True)
    args = parser.parse_args()
    kits = sorted(glob.glob(os.path.join(args.build, "grading", "lab*", "kit.json")))
    if not kits:
        print(f"no lab kits in {args.build}/grading", file=sys.stderr)
        return 1
    problems = [problem for kit in kits for problem in problems_of(kit)]
    for problem in problems:
        print(problem)
    print(f"{len(kits)} labs checked, {len(problems)} disagreements")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
