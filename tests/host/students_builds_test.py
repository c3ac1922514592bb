#!/usr/bin/env python3
"""The method checks read builds made by grade.py's own compile command.

grade.py compiles each student's file in one nvcc call that keeps nvcc's own
device code for the file (-keep; Kit.compile), and the lab grader reads
that fatbin (--student-code) rather than the library, in which bytes placed by
hand could stand in for it (red team 13's decoy fatbin). Calibration grades the
reference compiled the same way.

This test compiles red-team files of labs 3 to 5 with each lab's kit command,
then has machine_code_builds read the device code kept for each (at compute
capabilities 7.5, 8.9, 9.0 and 10.0) against the reference's, kept the same way:
they must read as machine_code_builds expects (its kExpected). The decoy file's
library must read otherwise, or the test has lost its reason.

    students_builds_test.py --build BUILD --reader machine_code_builds --cuobjdump PATH [--nvdisasm-dir DIR] --ptxas PATH

Exits 77 (skipped) without a cuobjdump or the labs' kits.
"""
import argparse
import os
import subprocess
import sys
import tempfile

SOURCE = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(SOURCE, "grader"))
from memlab_grader.kit import KitError, device_code_of, load_kit  # noqa: E402

RED_TEAM = os.path.join(SOURCE, "grader", "corpus", "red-team")
# Names as machine_code_builds expects them (its kExpected), and their files.
FILES = {
    "lab3": {"lab3_fair_neumaier": "round6/lab3/08-fair_neumaier_block_per_row/precision.cu",
             "lab3_trick_compensated_is_double": "round6/lab3/06-trick_compensated_is_double/precision.cu",
             "lab3_noinline_double_helper": "round13/lab3/01-trick_noinline_double_helper/precision.cu",
             "lab3_extern_c_in_double": "round13/lab3/04-trick_extern_c_kernel_in_double/precision.cu",
             "lab3_decoy_swallows_real": "round13/lab3/05-trick_decoy_fatbin_swallows_real/precision.cu",
             "lab3_fair_sinf": "round13/lab3/06-fair_sinf_in_a_float_kernel/precision.cu",
             "lab3_ptx_spelled_to_mislead":
                 "round15/lab3/08-trick_ptx_spelled_to_mislead_a_text_reader/precision.cu"},
    "lab4": {"lab4_trick_tiled_kernel_never_called": "round6/lab4/09-trick_no_shared_memory/matmul.cu",
             "lab4_one_shared_store": "round12/lab4/01-trick_naive_with_one_shared_store/matmul.cu",
             "lab4_fair_noinline_tile_helpers": "round13/lab4/03-fair_noinline_tile_helpers/matmul.cu"},
    "lab5": {"lab5_fair_split_atomic": "round6/lab5/13-fair_column_major_split_atomic/gemv.cu",
             "lab5_trick_shared_x_without_shared": "round6/lab5/12-trick_shared_x_without_shared/gemv.cu",
             "lab5_fair_generic_pointer": "round13/lab5/02-fair_stage_flag_generic_pointer/gemv.cu"},
}
# Its library holds a decoy that cuobjdump reads instead of the file's own code.
DECOY = "lab3_decoy_swallows_real"


def compile_as_student(kit, source: str, folder: str, name: str) -> str:
    """The library grade.py would build from @p source; its kept device code beside it."""
    library = os.path.join(folder, f"lib{name}.so")
    finished, kept = kit.compile(source, library, os.path.join(folder, f"{name}.d"),
                                 log_path=os.path.join(folder, f"{name}.log"), time_limit=600, output_limit=1 << 20)
    if finished.exit_code != 0 or not kept:
        sys.exit(f"FAIL: {name} does not compile with the kit's command:\n{finished.output.decode()[-2000:]}")
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
    parser.add_argument("--ptxas", default="")
    args = parser.parse_args()
    if not args.cuobjdump:
        print("skipped: no cuobjdump was found when the project was configured (scripts/bootstrap.sh --machine-code)")
        return 77
    reader = [args.reader, args.cuobjdump, args.nvdisasm_dir, args.ptxas]
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
            kept = read(reader, {f"{lab}_reference": device_code_of(kit.reference_as_student),
                                 **{name: device_code_of(library) for name, library in students.items()}})
            print(kept.stdout, end="")
            if kept.returncode != 0:
                print(f"FAIL {lab}: the device code kept by grade.py's compile does not read as expected")
                failures += 1
            if DECOY in students:
                library = read(reader, {f"{lab}_reference": kit.reference_as_student, DECOY: students[DECOY]})
                if library.returncode == 0:
                    print(f"FAIL {lab}: the decoy's library reads like its own code: this test has lost its reason")
                    failures += 1
                else:
                    print(f"ok   {lab}: the decoy's library reads otherwise (why grade.py reads the kept code)")
    print(f"{failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
