#!/usr/bin/env python3
"""The method checks read builds made by grade.py's own compile command.

grade.py compiles each student's file in one nvcc call, whose link puts one more
code file in the library than CMake's build of the reference holds. Counted
against CMake's reference, every student's build looked doctored, and the
reference itself lost lab 5's step 3 on an H100 (session 9). The kit now
compiles the reference the students' way (Kit.code_baseline), and the lab
grader counts against that.

This test compiles red-team files of labs 3 to 5 with each lab's kit command,
then has machine_code_builds read them (at compute capabilities 7.5, 8.9, 9.0
and 10.0) against the reference compiled the same way: they must read as
expected. Read against CMake's reference instead, they must be refused: the
mismatch this test guards against is real.

    students_builds_test.py --build BUILD --reader machine_code_builds --cuobjdump PATH [--nvdisasm-dir DIR]

Exits 77 (skipped) without a cuobjdump or the labs' kits.
"""
import argparse
import os
import subprocess
import sys
import tempfile

SOURCE = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(SOURCE, "grader"))
from memlab_grader.kit import KitError, load_kit  # noqa: E402

RED_TEAM = os.path.join(SOURCE, "grader", "corpus", "red-team")
# Names as machine_code_builds expects them (its kExpected), and their files.
FILES = {
    "lab3": {"lab3_fair_neumaier": "round6/lab3/08-fair_neumaier_block_per_row/precision.cu",
             "lab3_trick_compensated_is_double": "round6/lab3/06-trick_compensated_is_double/precision.cu"},
    "lab4": {"lab4_trick_tiled_kernel_never_called": "round6/lab4/09-trick_no_shared_memory/matmul.cu",
             "lab4_one_shared_store": "round12/lab4/01-trick_naive_with_one_shared_store/matmul.cu"},
    "lab5": {"lab5_fair_split_atomic": "round6/lab5/13-fair_column_major_split_atomic/gemv.cu",
             "lab5_trick_shared_x_without_shared": "round6/lab5/12-trick_shared_x_without_shared/gemv.cu"},
}


def compile_as_student(kit, source: str, folder: str, name: str) -> str:
    library = os.path.join(folder, f"lib{name}.so")
    command = kit.compile_command(source, library, os.path.join(folder, f"{name}.d"))
    done = subprocess.run(command, cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if done.returncode != 0:
        sys.exit(f"FAIL: {name} does not compile with the kit's command:\n{done.stdout[-2000:]}")
    return library


def read(reader: list, libraries: dict) -> subprocess.CompletedProcess:
    return subprocess.run(reader + [f"{name}={path}" for name, path in libraries.items()],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", required=True)
    parser.add_argument("--reader", required=True, help="the machine_code_builds program")
    parser.add_argument("--cuobjdump", default="")
    parser.add_argument("--nvdisasm-dir", default="")
    args = parser.parse_args()
    if not args.cuobjdump:
        print("skipped: no cuobjdump was found when the project was configured (scripts/bootstrap.sh --machine-code)")
        return 77
    reader = [args.reader, args.cuobjdump, args.nvdisasm_dir]
    failures = 0
    with tempfile.TemporaryDirectory(prefix="students-builds-") as work:
        for lab, files in FILES.items():
            try:
                kit = load_kit(os.path.join(args.build, "grading", lab, "kit.json"))
                kit = kit.snapshot(os.path.join(work, lab, "kit"))  # compiles the reference the students' way
            except KitError as error:
                print(f"skipped: {lab}'s kit: {error}")
                return 77
            builds = os.path.join(work, lab, "builds")
            os.makedirs(builds)
            students = {name: compile_as_student(kit, os.path.join(RED_TEAM, path), builds, name)
                        for name, path in files.items()}
            against_baseline = read(reader, {f"{lab}_reference": kit.code_baseline, **students})
            print(against_baseline.stdout, end="")
            if against_baseline.returncode != 0:
                print(f"FAIL {lab}: grade.py's builds do not read as expected against the reference compiled "
                      "the same way")
                failures += 1
            against_cmake = read(reader, {f"{lab}_reference": kit.reference, **students})
            refused = "where the reference build" in against_cmake.stdout
            if against_cmake.returncode == 0 or not refused:
                print(f"FAIL {lab}: against CMake's reference, whose link differs, the count should refuse "
                      f"grade.py's builds (if it no longer does, this test has lost its reason):\n"
                      f"{against_cmake.stdout}")
                failures += 1
            else:
                print(f"ok   {lab}: against CMake's reference, grade.py's builds are refused (a count that differs)")
    print(f"{failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
