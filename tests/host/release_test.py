#!/usr/bin/env python3
"""`make release` hands out the labs without the solutions, and `make lab1` works in what it hands out.

    tests/host/release_test.py --build BUILD

Makes a release into BUILD/release-test/tree (the references built in
BUILD/release-test/references, kept between runs), checks that no solution
source is in it and that the check would see one, then configures the released
tree and runs lab 1 there as `make lab1` does (scripts/lab.sh): without a GPU
that compiles the skeleton, the grader and the kit and says grading needs a GPU.
"""
import argparse
import filecmp
import glob
import os
import shutil
import subprocess
import sys

SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(SOURCE_DIR, "scripts"))
import release  # noqa: E402


def run(command, **options):
    print("+", " ".join(command), flush=True)
    return subprocess.run(command, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, **options)


def require(condition, message):
    if not condition:
        print(f"FAILED: {message}", file=sys.stderr)
        sys.exit(1)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", required=True)
    args = parser.parse_args()
    work = os.path.join(os.path.abspath(args.build), "release-test")
    tree = os.path.join(work, "tree")
    shutil.rmtree(tree, ignore_errors=True)

    made = run([sys.executable, os.path.join(SOURCE_DIR, "scripts", "release.py"), "--out", tree,
                "--build", os.path.join(work, "references")])
    print(made.stdout[-3000:])
    require(made.returncode == 0, "make release failed")
    require(not os.path.exists(os.path.join(tree, "solutions")), "the release has solutions/")
    labs = sorted(release.labs())
    for lab in labs:
        require(os.path.isfile(os.path.join(tree, "references", f"lib{lab}_reference.so")), f"no prebuilt {lab}")
    sources = [os.path.relpath(p, tree) for p in glob.glob(os.path.join(tree, "**", "*.cu"), recursive=True)]
    print(f"{len(sources)} .cu files in the release; {len(release.distinctive_lines())} "
          f"distinctive lines of the solutions searched for in every file and in the libraries' strings")

    # The check sees a solution's line wherever it is copied.
    planted = os.path.join(tree, "docs", "planted.md")
    line = release.distinctive_lines()[len(release.distinctive_lines()) // 2]
    with open(planted, "w", encoding="utf-8") as handle:
        handle.write(f"Some notes\n    {line}\n")
    require(f"docs/planted.md: {line}" in release.leaks(tree), "the check missed a planted line of a solution")
    os.remove(planted)
    # And PTX in a library: the kernels' text, which the references must not carry.
    with_ptx = os.path.join(tree, "references", "libplanted.so")
    with open(with_ptx, "wb") as handle:
        handle.write(b"\x7fELF\0\0.version 9.0\n.target sm_90\n.address_size 64\n\0")
    require("references/libplanted.so: PTX (the kernels' text)" in release.leaks(tree), "the check missed PTX")
    os.remove(with_ptx)

    # `make lab1` in the released tree: configure as the Makefile does (one architecture, for time).
    build = os.path.join(tree, "build")
    configure = ["cmake", "-S", tree, "-B", build, "-DCMAKE_CUDA_ARCHITECTURES=75-real"]
    if shutil.which("ninja"):
        configure += ["-G", "Ninja"]
    if os.path.isdir(os.path.join(SOURCE_DIR, ".deps", "include")):
        configure.append(f"-DCMAKE_PREFIX_PATH={os.path.join(SOURCE_DIR, '.deps')}")
    configured = run(configure)
    require(configured.returncode == 0, f"the released tree does not configure:\n{configured.stdout[-3000:]}")
    jobs = os.environ.get("JOBS", "2")
    lab = run(["scripts/lab.sh", "lab1"], cwd=tree, env=dict(os.environ, BUILD=build, CMAKE_BUILD_PARALLEL_LEVEL=jobs))
    print(lab.stdout[-2000:])
    require(lab.returncode in (0, 1), "make lab1 failed in the released tree")
    require("needs a GPU" in lab.stdout or "step1" in lab.stdout, "make lab1 neither graded nor said it needs a GPU")
    require(filecmp.cmp(os.path.join(tree, "references", "liblab1_reference.so"),
                        os.path.join(build, "labs", "lab1", "liblab1_reference.so"), shallow=False),
            "lab 1's grader does not use the prebuilt reference")
    kit = run(["cmake", "--build", build, "--target", "lab1_grading"], env=dict(os.environ, CMAKE_BUILD_PARALLEL_LEVEL=jobs))
    require(kit.returncode == 0, f"make grade's kit does not build in the released tree:\n{kit.stdout[-3000:]}")
    print("The release holds no solution source, and make lab1 and the grading kit build in it.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
