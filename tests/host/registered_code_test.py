#!/usr/bin/env python3
"""The runner's guard on the GPU code a build registers (registered_code.hpp),
with lab 3's real runner and builds compiled by grade.py's command: the
reference loads, and red team 14's two ways to register other code than the
file's (nvcc's fatbin symbol renamed by a pragma; the fatbin written over by a
constructor before it is registered) and red team 17's two (a registered
handle pointed at other bytes afterwards) end the runner before it serves a call.
Without a GPU the runner gets as far as its first CUDA call, after loading.

    registered_code_test.py --build BUILD

Exits 77 (skipped) without lab 3's kit."""
import argparse
import os
import socket
import subprocess
import sys
import tempfile

SOURCE = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(SOURCE, "grader"))
from memlab_grader.kit import KitError, device_code_of, load_kit  # noqa: E402

ROUND14 = os.path.join(SOURCE, "grader", "corpus", "red-team", "round14", "lab3")
ROUND17 = os.path.join(SOURCE, "grader", "corpus", "red-team", "round17", "lab3")
TRICKS = {"renamed_fatbin": os.path.join(ROUND14, "01-trick_redefine_extname_registers_other_code", "precision.cu"),
          "fatbin_written_over": os.path.join(ROUND14, "06-trick_constructor_patches_fatbin", "precision.cu"),
          # Red team 17: a handle pointed at other bytes after registration, through nvcc's own
          # variable or a second registration made through weakrefs.
          "handle_swapped": os.path.join(ROUND17, "01-trick_nvcc_handle_swapped_after_guard", "precision.cu"),
          "weakref_registration": os.path.join(ROUND17, "03-trick_weakref_registration_handle_swapped", "precision.cu")}
REFUSED = "registers GPU code that nvcc did not compile from the lab's file"


def run_runner(kit, library: str, allowed: list, work: str):
    """The runner on @p library, allowed @p allowed (files; none: no guard); its exit code and stderr."""
    ours, theirs = socket.socketpair()
    fds = [theirs.fileno()]
    command = [kit.runner, "--library", library, "--socket", str(theirs.fileno())]
    code_file = None
    if allowed:
        code_path = os.path.join(work, "allowed.fatbin")
        with open(code_path, "wb") as handle:
            for path in allowed:
                with open(path, "rb") as part:
                    handle.write(part.read())
        code_file = open(code_path, "rb")
        fds.append(code_file.fileno())
        command += ["--allowed-code", str(code_file.fileno())]
    runner = subprocess.Popen(command, pass_fds=fds, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    theirs.close()
    ours.close()  # a runner that got past loading finds no grader and ends
    _, errors = runner.communicate(timeout=120)
    if code_file:
        code_file.close()
    return runner.returncode, errors.decode(errors="replace").strip()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", required=True)
    args = parser.parse_args()
    failures = 0
    with tempfile.TemporaryDirectory(prefix="registered-code-") as work:
        try:
            kit = load_kit(os.path.join(args.build, "grading", "lab3", "kit.json")).snapshot(os.path.join(work, "kit"))
        except KitError as error:
            print(f"skipped: lab 3's kit: {error}")
            return 77
        if not kit.table_code:
            print("FAIL: the kit found no GPU code in the table object")
            return 1
        libraries = {"reference": kit.reference_as_student}
        for name, source in TRICKS.items():
            library = os.path.join(work, f"lib{name}.so")
            finished, kept = kit.compile(source, library, os.path.join(work, f"{name}.d"),
                                         log_path=os.path.join(work, f"{name}.log"), time_limit=600,
                                         output_limit=1 << 20)
            if finished.exit_code != 0 or not kept:
                print(f"FAIL: {name} does not compile with the kit's command:\n{finished.text()[-2000:]}")
                return 1
            libraries[name] = library
        for name, library in libraries.items():
            allowed = [device_code_of(library)] + kit.table_code
            status, errors = run_runner(kit, library, allowed, work)
            refused = REFUSED in errors
            right = refused == (name != "reference") and (status == 2 if refused else True)
            print(f"{'ok  ' if right else 'FAIL'} {name:<20} guarded: exit {status}, "
                  f"{'refused' if refused else 'loaded'} ({errors.splitlines()[-1] if errors else 'no message'})")
            failures += 0 if right else 1
            if name != "reference":
                # Without the guard the same build loads: the refusal above is the guard's.
                status, errors = run_runner(kit, library, [], work)
                right = REFUSED not in errors
                print(f"{'ok  ' if right else 'FAIL'} {name:<20} unguarded: exit {status}, "
                      f"{'refused' if not right else 'loaded'}")
                failures += 0 if right else 1
    print(f"{failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
