#!/usr/bin/env python3
"""`make release OUT=DIR`: the students' handout, a tree without the solutions.

    scripts/release.py --out DIR [--build DIR]

DIR gets every file git tracks here, except what holds or is made from the
solutions (EXCLUDED), and references/: each lab's reference built as the plugin
library its grader loads (lib<lab>_reference.so), for every supported GPU
(cmake/CudaArchitectures.cmake, MEMLAB_PORTABLE), and references/release.cmake,
which says what built them. In DIR, CMake finds no solutions/ and uses those
libraries instead (memlab_add_reference in cmake/Labs.cmake), so `make labN`
works there unchanged.

Before it returns, the release is checked: no distinctive line of a solution's
source may be in any file of DIR, nor in the libraries' strings, and no library
may hold PTX (the kernels' text; they are built as machine code alone, -DMEMLAB_PORTABLE).
A binary is never secret: see docs/instructors.md for what a
student can read out of one.
"""
from __future__ import annotations

import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
from typing import Dict, List

SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Paths (prefixes) left out: the solutions, and what is made from them or tests
# them (wrong variants, the grader's corpus and tests, the benchmarks), and CI.
EXCLUDED = ("solutions/", "tests/", "bench/", "grader/corpus/", "grader/tests/", "grader/CMakeLists.txt", ".ci/")
# A solution's line shorter than this is too common to be evidence ("}", "return out;").
MIN_LINE = 24


class ReleaseError(Exception):
    pass


def tracked_files() -> List[str]:
    try:
        listed = subprocess.run(["git", "-C", SOURCE_DIR, "ls-files", "-z"], check=True,
                                stdout=subprocess.PIPE).stdout.decode()
    except (OSError, subprocess.CalledProcessError) as error:
        raise ReleaseError(f"make release needs a git checkout (it copies what git tracks): {error}") from None
    return [path for path in listed.split("\0") if path and os.path.isfile(os.path.join(SOURCE_DIR, path))]


def released_files() -> List[str]:
    return [path for path in tracked_files() if not path.startswith(EXCLUDED)]


def labs() -> Dict[str, str]:
    """lab name -> its folder name (lab1 -> lab1_caching), as labs/ holds them."""
    folders = sorted(os.path.basename(p) for p in glob.glob(os.path.join(SOURCE_DIR, "labs", "lab*_*")))
    return {folder.split("_")[0]: folder for folder in folders}


def build_references(build: str) -> Dict[str, str]:
    """Every reference build (each lab's, and a profile variant's) for every supported GPU:
    target -> library, as CMake lists them in reference_builds.txt."""
    configure = ["cmake", "-S", SOURCE_DIR, "-B", build, "-DMEMLAB_PORTABLE=ON"]
    if shutil.which("ninja") and not os.path.isfile(os.path.join(build, "CMakeCache.txt")):
        configure += ["-G", "Ninja"]
    if os.path.isdir(os.path.join(SOURCE_DIR, ".deps", "include")):
        configure.append(f"-DCMAKE_PREFIX_PATH={os.path.join(SOURCE_DIR, '.deps')}")
    subprocess.run(configure, check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(build, "reference_builds.txt"), encoding="utf-8") as listing:
        references = dict(line.split(" ", 1) for line in listing.read().splitlines() if line)
    jobs = os.environ.get("JOBS", str(os.cpu_count() or 1))
    subprocess.run(["cmake", "--build", build, "-j", jobs, "--target"] + sorted(references), check=True)
    return references


def cache_value(build: str, name: str) -> str:
    with open(os.path.join(build, "CMakeCache.txt"), encoding="utf-8") as cache:
        for line in cache:
            if line.startswith(f"{name}:"):
                return line.split("=", 1)[1].strip()
    return ""


def write_release(out: str, build: str, references: Dict[str, str]) -> None:
    for path in released_files():
        target = os.path.join(out, path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copy2(os.path.join(SOURCE_DIR, path), target)
    folder = os.path.join(out, "references")
    os.makedirs(folder)
    for library in references.values():
        shutil.copy2(library, folder)
    version = subprocess.run(["git", "-C", SOURCE_DIR, "describe", "--always", "--dirty"],
                             stdout=subprocess.PIPE, text=True).stdout.strip()
    with open(os.path.join(folder, "release.cmake"), "w", encoding="utf-8") as manifest:
        manifest.write(
            "# Written by `make release` (scripts/release.py): what built the libraries in this folder.\n"
            "# They link the CUDA runtime of this toolkit's major version, so the tree needs that toolkit.\n"
            f"set(MEMLAB_RELEASE_CUDA_VERSION \"{compiler_version(build)}\")\n"
            f"set(MEMLAB_RELEASE_ARCHITECTURES \"{cache_value(build, 'CMAKE_CUDA_ARCHITECTURES')}\")\n"
            f"set(MEMLAB_RELEASE_SOURCE \"{version}\")\n")


def compiler_version(build: str) -> str:
    """The CUDA compiler's version, as CMake found it (not in the cache: in CMakeFiles/)."""
    for path in glob.glob(os.path.join(build, "CMakeFiles", "*", "CMakeCUDACompiler.cmake")):
        with open(path, encoding="utf-8") as handle:
            found = re.search(r'set\(CMAKE_CUDA_COMPILER_VERSION "([^"]+)"\)', handle.read())
        if found:
            return found.group(1)
    raise ReleaseError(f"cannot tell the CUDA compiler's version from {build}")


def course_code_lines() -> set:
    """Every line of the course's own code (labs/ and common/, guides aside): a
    solution shares its includes, signatures and idioms with these."""
    lines = set()
    for path in released_files():
        if path.startswith(("labs/", "common/")) and path.endswith((".cu", ".cuh", ".cpp", ".hpp", ".h")):
            with open(os.path.join(SOURCE_DIR, path), encoding="utf-8", errors="replace") as handle:
                lines.update(line.strip() for line in handle)
    return lines


def distinctive_lines() -> List[str]:
    """Lines of the solutions that no code of the course has, long enough to be evidence."""
    known = course_code_lines()
    lines = set()
    for path in glob.glob(os.path.join(SOURCE_DIR, "solutions", "*", "*.cu")):
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines.update(line.strip() for line in handle)
    return sorted(line for line in lines if len(line) >= MIN_LINE and line not in known)


def library_text(library: str) -> str:
    """What `strings` reads in a library: its names, messages and any uncompressed PTX."""
    return subprocess.run(["strings", "-n", "8", library], check=True, stdout=subprocess.PIPE,
                          text=True, errors="replace").stdout


def leaks(out: str) -> List[str]:
    """Where the release holds a distinctive line of a solution: 'file: line' each."""
    lines = {}  # path -> its lines, stripped as the solutions' are
    for root, _, names in os.walk(out):
        for name in names:
            path = os.path.join(root, name)
            if name.endswith(".so"):
                text = library_text(path)
            else:
                with open(path, encoding="utf-8", errors="replace") as handle:
                    text = handle.read()
            lines[os.path.relpath(path, out)] = {line.strip() for line in text.splitlines()}
    found = [f"{path}: {line}" for line in distinctive_lines() for path, held in sorted(lines.items()) if line in held]
    # Line information maps the kernels to the solutions' lines, and brings their PTX into every binary.
    found += [f"{path}: line information (.loc)" for path, held in sorted(lines.items())
              if path.endswith(".so") and any(line.startswith(".loc") for line in held)]
    # PTX is the kernels' own text (names, tiles, loops): the references ship machine code alone.
    found += [f"{path}: PTX (the kernels' text)" for path, held in sorted(lines.items())
              if path.endswith(".so") and any(line.startswith((".target sm_", ".entry ", ".visible .entry")) for line in held)]
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="the release's folder (new, or empty)")
    parser.add_argument("--build", default=os.path.join(SOURCE_DIR, "build", "release"),
                        help="where the references are built (default: build/release)")
    args = parser.parse_args()
    out = os.path.abspath(args.out)
    try:
        if os.path.exists(out) and os.listdir(out):
            raise ReleaseError(f"{out} exists and is not empty: give a new folder")
        if not os.path.isdir(os.path.join(SOURCE_DIR, "solutions")):
            raise ReleaseError("there is no solutions/ here: this is a released tree already")
        references = build_references(os.path.abspath(args.build))
        write_release(out, os.path.abspath(args.build), references)
        found = leaks(out)
        if found:
            raise ReleaseError("the release holds solution source; nothing of it may be handed out:\n  " +
                               "\n  ".join(found))
    except (ReleaseError, subprocess.CalledProcessError) as error:
        print(f"release.py: {error}", file=sys.stderr)
        return 1
    print(f"The release is in {out}: {len(released_files())} files and {len(references)} prebuilt references "
          f"(no solution source found in it). Students run `make labN` there.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
