#!/usr/bin/env python3
"""Adding a lab takes its folder, its solution and its points table, and no other edit.

Copies the project into a temporary folder, drops in the throwaway lab of
tests/host/new_lab/ (labs/lab6_tiny/, solutions/lab6_tiny/scale.cu,
grader/points/lab6.txt), then checks that every part finds it with nothing else
changed: CMake builds its grader, runner and builds and registers its tests,
the instructors' grader grades a folder of submissions for it (with any GPU
hidden: compiled, scanned, "not run: no GPU"), its corpus test is registered,
and the documentation lists its guide.

    add_a_lab.py --build BUILD    (BUILD: the project's configured build, for its settings)
"""
import argparse
import csv
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.path.dirname(os.path.dirname(HERE))
NEW_LAB = os.path.join(HERE, "new_lab")


def cache_value(build: str, name: str) -> str:
    """A setting of the project's build (CMakeCache.txt), or ""."""
    with open(os.path.join(build, "CMakeCache.txt"), encoding="utf-8") as cache:
        for line in cache:
            match = re.match(rf"{re.escape(name)}:[A-Z]+=(.*)$", line.rstrip("\n"))
            if match:
                return match.group(1)
    return ""


def run(command, cwd=None, env=None):
    result = subprocess.run(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return result.returncode, result.stdout


def fail(message: str) -> int:
    print(f"FAIL: {message}")
    return 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", required=True)
    args = parser.parse_args()
    build = os.path.abspath(args.build)

    with tempfile.TemporaryDirectory(prefix="memlab-new-lab-") as work:
        project = os.path.join(work, "project")
        skip = {".git", ".deps", ".devrun", os.path.basename(build), "__pycache__"}
        shutil.copytree(SOURCE_DIR, project, ignore=lambda folder, names: [n for n in names if n in skip])
        # The new lab: its folder, its solution, its points. Nothing else is edited.
        shutil.copytree(os.path.join(NEW_LAB, "lab6_tiny"), os.path.join(project, "labs", "lab6_tiny"))
        os.makedirs(os.path.join(project, "solutions", "lab6_tiny"))
        shutil.copy(os.path.join(NEW_LAB, "solution", "scale.cu"), os.path.join(project, "solutions", "lab6_tiny"))
        shutil.copy(os.path.join(NEW_LAB, "points.txt"), os.path.join(project, "grader", "points", "lab6.txt"))

        copy_build = os.path.join(work, "build")
        configure = ["cmake", "-S", project, "-B", copy_build, "-DCMAKE_CUDA_ARCHITECTURES=75"]
        generator = cache_value(build, "CMAKE_GENERATOR")
        if generator:
            configure += ["-G", generator]
        for setting in ("CMAKE_PREFIX_PATH", "Catch2_DIR", "CMAKE_CUDA_COMPILER", "MEMLAB_CUOBJDUMP", "MEMLAB_NVDISASM"):
            value = cache_value(build, setting)
            if value and not value.endswith("-NOTFOUND"):
                configure.append(f"-D{setting}={value}")
        status, output = run(configure)
        if status != 0:
            print(output[-3000:])
            return fail("the copy with the new lab does not configure")

        status, output = run(["cmake", "--build", copy_build, "--target", "lab6", "lab6_grading",
                              "-j", str(os.cpu_count() or 1)])
        if status != 0:
            print(output[-3000:])
            return fail("the new lab's grader, runner and builds do not build")
        print("built: lab6's grader, runner, student and reference builds, its grading kit")

        status, output = run(["ctest", "--test-dir", copy_build, "-N"])
        for test in ("lab6.reference_passes", "lab6.shipped_skeleton_fails_step1", "grader.corpus_lab6"):
            if test not in output:
                return fail(f"CTest does not list {test}")
        print("registered: lab6.reference_passes, lab6.shipped_skeleton_fails_step1, grader.corpus_lab6")

        doxyfile = os.path.join(copy_build, "docs", "Doxyfile")
        if os.path.exists(doxyfile):  # only where Doxygen is installed
            with open(doxyfile, encoding="utf-8") as f:
                text = f.read()
            if "labs/lab6_tiny/README.md" not in text or "labs/lab6_tiny/lab6.cuh" not in text:
                return fail("the documentation does not list the new lab's guide and header")
            print("documented: the guide and the header are in Doxygen's input")

        # The instructors' grader, GPU hidden: the solution and the skeleton compile and pass the scan.
        submissions = os.path.join(work, "submissions")
        for student, source in (("alice", os.path.join(NEW_LAB, "solution", "scale.cu")),
                                ("bob", os.path.join(NEW_LAB, "lab6_tiny", "scale.cu"))):
            os.makedirs(os.path.join(submissions, student))
            shutil.copy(source, os.path.join(submissions, student, "scale.cu"))
        out = os.path.join(work, "grades")
        status, output = run([sys.executable, os.path.join(project, "grader", "grade.py"), "--lab", "lab6",
                              "--submissions", submissions, "--out", out, "--build", copy_build],
                             env=dict(os.environ, CUDA_VISIBLE_DEVICES=""))
        gradebook = os.path.join(out, "gradebook.csv")
        if not os.path.exists(gradebook):
            print(output[-3000:])
            return fail("grade.py wrote no gradebook for the new lab")
        with open(gradebook, encoding="utf-8", newline="") as f:
            rows = {row["student"]: row["status"] for row in csv.DictReader(f)}
        if rows != {"alice": "not run: no GPU", "bob": "not run: no GPU"}:
            print(output[-3000:])
            return fail(f"grade.py's rows for the new lab: {rows}")
        print("graded: grade.py --lab lab6 compiled and scanned both submissions (not run: no GPU, as asked)")
    print("PASS: a new lab needed its folder, its solution and its points table, and no other edit")
    return 0


if __name__ == "__main__":
    sys.exit(main())
