"""What CMake built for grading one lab: build/grading/<lab>/kit.json.

It names the pristine grader and reference, the lab's table object, and the
compiler flags of the lab's own builds; the instructors' grader compiles each
submission with exactly these, against these, and nothing from the student
but the one file.
"""
from __future__ import annotations

import glob
import hashlib
import json
import os
import shutil
from dataclasses import dataclass, field
from typing import List, Sequence, Tuple

from . import elf, scan
from .sandbox import Finished, run_limited


# What #include can name; the files of the course a compile may read (Kit.compile_inputs).
HEADER_SUFFIXES = (".h", ".hh", ".hpp", ".hxx", ".cuh", ".inl", ".inc")
# The grader's modules that compile a submission and judge the compile (Kit.compile_inputs).
COMPILE_MODULES = ("kit.py", "scan.py", "elf.py", "grading.py", "sandbox.py")
# The reference compiles in a few seconds; a compiler stuck this long is broken.
COMPILE_REFERENCE_SECONDS = 600
# What of the compiler's output a reference's compile log keeps.
COMPILE_REFERENCE_OUTPUT_BYTES = 1 << 20


class KitError(Exception):
    """The kit is missing or does not describe a usable lab build."""


@dataclass
class Kit:
    lab: str
    version: str
    source_dir: str
    lab_dir: str
    skeleton: str
    reference_source: str
    grader: str
    runner: str
    reference: str
    table_objects: List[str]
    compiler: str
    compile_flags: List[str]
    architectures: str
    include_dirs: List[str]
    link_flags: List[str]
    forbid: List[str]
    points: str
    cuobjdump: str = ""  # with which the lab grader reads the student's kernels ("" when the build found none)
    # The reference source compiled by compile_command, exactly as a student's
    # file is ("" until snapshot() compiles it): what calibration grades, so
    # that the method checks are seen to pass the reference built this way.
    reference_as_student: str = ""
    # The table objects' GPU code (their .nv_fatbin sections), which a student's build
    # registers beside its own file's (set by snapshot()): what its runner allows.
    table_code: List[str] = field(default_factory=list)
    path: str = field(default="", compare=False)

    def compile_inputs(self) -> str:
        """SHA-256 of what settles a student's compile besides the file, the compiler, its flags
        and architectures: the headers under the include folders (all a compile may read of the
        course: scan.check_dependencies fails any other course file), as they are, committed or
        not; the link flags and forbidden libraries; and the grader's modules that compile and
        judge a compile (COMPILE_MODULES). --resume keeps a compile failure only where this
        matches; a git description cannot say so (a course unpacked from a tarball has none, and
        "-dirty" names no edit). Not READMEs, editors' swap files or the reports' code: a change
        there must not stop a --resume (red team 39)."""
        digest = hashlib.sha256(json.dumps([self.link_flags, self.forbid]).encode())
        for index, folder in enumerate(self.include_dirs):
            for path in sorted(files_under(folder, skip=("__pycache__",))):
                name = os.path.basename(path)
                if name.startswith(".") or not name.endswith(HEADER_SUFFIXES):
                    continue
                try:
                    content = sha256_of(path)
                except OSError as error:  # a file no compile can read either: its name and why
                    content = f"unreadable: {error.strerror}"
                digest.update(f"{index}/{os.path.relpath(path, folder)}\0{content}\n".encode())
        package = os.path.dirname(os.path.abspath(__file__))
        for module in COMPILE_MODULES:
            digest.update(f"grader/{module}\0{sha256_of(os.path.join(package, module))}\n".encode())
        return digest.hexdigest()

    def compile_command(self, source: str, library: str, dependencies: str) -> List[str]:
        """One compiler call: @p source and the table into the shared library
        @p library, listing every file it read in @p dependencies, and keeping
        nvcc's intermediate files in keep_folder(@p library) (which must exist)."""
        includes = [f"-I{folder}" for folder in self.include_dirs]
        return ([self.compiler] + self.compile_flags + architecture_flags(self.architectures) + includes +
                self.link_flags + ["-MD", "-MF", dependencies, "-keep", "-keep-dir", keep_folder(library),
                                   "-o", library, source] + self.table_objects)

    def compile(self, source: str, library: str, dependencies: str, *, log_path: str, time_limit: float,
                output_limit: int, prefix: Sequence[str] = ()) -> Tuple[Finished, bool]:
        """Compiles @p source into @p library by compile_command, in the
        library's folder (under @p prefix: a sandbox's words), as run_limited
        runs a program. Returns how the compiler ended, and whether what the
        checks read of nvcc's intermediate files was kept (take_kept_files); the
        other intermediate files are removed."""
        os.makedirs(keep_folder(library), exist_ok=True)
        finished = run_limited(list(prefix) + self.compile_command(source, library, dependencies), log_path=log_path,
                               time_limit=time_limit, output_limit=output_limit, cwd=os.path.dirname(library))
        return finished, take_kept_files(source, library)

    def allowed_headers(self) -> List[str]:
        """Headers a submission may include from the course: the lab's own and
        common/memlab's (not its grading machinery)."""
        headers = []
        for folder in (self.lab_dir, os.path.join(self.source_dir, "common", "memlab")):
            for pattern in ("*.cuh", "*.hpp", "*.h"):
                headers += glob.glob(os.path.join(folder, pattern))
        return sorted(headers)

    def snapshot(self, folder: str) -> "Kit":
        """Copies the grader, the reference and the table into @p folder and
        returns the kit that uses the copies: a rebuild during a long run (or
        between a run and its --resume) cannot change what grades."""
        os.makedirs(folder, exist_ok=True)
        copied = {}
        for name in ("grader", "runner", "reference"):
            target = os.path.join(folder, os.path.basename(getattr(self, name)))
            copy_unless_same(getattr(self, name), target)
            copied[name] = target
        objects, codes = [], []
        for index, obj in enumerate(self.table_objects):
            target = os.path.join(folder, f"table{index}.o")
            copy_unless_same(obj, target)
            objects.append(target)
            code = nv_fatbin_of(target)
            if code:
                codes.append(os.path.join(folder, f"table{index}.fatbin"))
                with open(codes[-1], "wb") as handle:
                    handle.write(code)
        fields = dict(self.__dict__, **copied, table_objects=objects, table_code=codes)
        kit = Kit(**fields)
        kit.reference_as_student = kit.compile_reference(folder)
        return kit

    def compile_reference(self, folder: str) -> str:
        """The reference source compiled into @p folder by the command that
        compiles every student's file, its device code kept as theirs is.
        (CMake builds the reference otherwise: its host link holds one code
        file fewer than nvcc's, which session 9's GPU run showed matters.)"""
        if not os.path.isfile(self.reference_source):
            raise KitError(f"the reference source {self.reference_source} is missing: grading needs the course's "
                           "full tree (solutions/ included), not a students' release")
        library = os.path.join(folder, f"lib{self.lab}_reference_as_student.so")
        log = os.path.join(folder, "reference-compile.log")
        try:
            finished, kept = self.compile(self.reference_source, library, os.path.join(folder, "reference.d"),
                                          log_path=log, time_limit=COMPILE_REFERENCE_SECONDS,
                                          output_limit=COMPILE_REFERENCE_OUTPUT_BYTES)
        except OSError as error:
            raise KitError(f"cannot compile the reference the way students' files are compiled: {error}") from None
        if finished.exit_code != 0 or not os.path.isfile(library) or not kept:
            output = finished.output.decode("utf-8", errors="replace").strip().splitlines()
            raise KitError(f"cannot compile the reference the way students' files are compiled (the log: {log}):\n"
                           + "\n".join(output[-20:]))
        # The scan's looks after compiling must pass the reference, whose lines use the course's macros
        # and which links what students' builds link.
        findings = self.scan_build(self.reference_source, library)
        if findings:
            raise KitError("the scan after compiling reads the reference as forbidden, so it would fail fair "
                           f"students too: {scan.describe(findings)}")
        return library

    def scan_build(self, source: str, library: str) -> List["scan.Finding"]:
        """The scan's looks after @p source was compiled into @p library (by compile()):
        its lines after the preprocessor, its host code's assembly, the library's imports
        (none to read in a file that is not ELF: the tests' stand-in compiler writes text)."""
        with open(preprocessed_of(library), encoding="utf-8", errors="replace") as handle:
            findings = scan.scan_preprocessed(handle.read(), source, self.forbid)
        with open(host_code_of(library), encoding="utf-8", errors="replace") as handle:
            findings += scan.check_host_assembly(handle.read(), source)
        with open(library, "rb") as handle:
            try:
                imported = elf.imported_names(handle.read())
            except elf.NotElf:
                imported = []
        return findings + scan.check_imports(imported, self.forbid)

    def fingerprint(self) -> dict:
        """SHA-256 of the grader, the runner, the reference and the table: what a grade depends on."""
        files = {"grader": self.grader, "runner": self.runner, "reference": self.reference}
        files.update({f"table{i}": path for i, path in enumerate(self.table_objects)})
        return {name: sha256_of(path) for name, path in files.items()}


def nv_fatbin_of(object_path: str) -> bytes:
    """The GPU code in the object @p object_path (elf.fatbins); b"" when it has
    none or is not a 64-bit ELF object (the tests' stand-ins)."""
    try:
        with open(object_path, "rb") as handle:
            return elf.fatbins(handle.read())
    except elf.NotElf:
        return b""
    except OSError as error:
        raise KitError(f"cannot read the GPU code of {object_path}: {error}") from None


def keep_folder(library: str) -> str:
    """Where the compile of @p library keeps nvcc's intermediate files."""
    return library + ".keep"


def device_code_of(library: str) -> str:
    """nvcc's own device code (a fatbin) for the file compiled into @p library:
    what the lab grader's method checks read. It is the code the runtime
    registers for that file; bytes placed in the library by hand are not in it."""
    return os.path.splitext(library)[0] + ".fatbin"


def preprocessed_of(library: str) -> str:
    """The host side of the file compiled into @p library as the preprocessor
    wrote it (nvcc's <file>.cpp4.ii: macros expanded, with line markers): what
    the scan reads a second time, where no macro hides a name."""
    return os.path.splitext(library)[0] + ".ii"


def host_code_of(library: str) -> str:
    """The host code of the file compiled into @p library as nvcc's front end
    wrote it for the host compiler (<file>.cudafe1.cpp: device functions' bodies
    set apart under #if 0): where the scan looks for assembly in host code."""
    return os.path.splitext(library)[0] + ".host.cpp"


def take_kept_files(source: str, library: str) -> bool:
    """Moves what the scan and the method checks read from nvcc's intermediate
    files for @p source (its fatbin to device_code_of(@p library), its host-side
    preprocessed text to preprocessed_of(@p library), its host code to
    host_code_of(@p library)) and removes the others. False when nvcc kept one not."""
    stem = os.path.join(keep_folder(library), os.path.splitext(os.path.basename(source))[0])
    # One host file, named after the first architecture when there are several (x.compute_75.cudafe1.cpp).
    host = sorted(glob.glob(glob.escape(stem) + "*.cudafe1.cpp")) or [stem + ".cudafe1.cpp"]
    found = True
    for kept, target in ((stem + ".fatbin", device_code_of(library)), (stem + ".cpp4.ii", preprocessed_of(library)),
                         (host[0], host_code_of(library))):
        try:
            os.replace(kept, target)
        except OSError:
            found = False
    shutil.rmtree(keep_folder(library), ignore_errors=True)
    return found


def copy_unless_same(source: str, target: str) -> None:
    """shutil.copy2, except that a file is not copied onto itself (a kit loaded from OUT's own snapshot)."""
    if os.path.exists(target) and os.path.samefile(source, target):
        return
    shutil.copy2(source, target)


def files_under(folder: str, skip: Sequence[str] = ()) -> List[str]:
    """Every regular file under @p folder, but in folders named in @p skip. Links are followed
    (a compile follows them), each folder once: a link to a folder above it ends there."""
    found, seen = [], set()
    for root, folders, files in os.walk(folder, followlinks=True):
        try:
            status = os.stat(root)
        except OSError:
            folders[:] = []
            continue
        if (status.st_dev, status.st_ino) in seen:
            folders[:] = []
            continue
        seen.add((status.st_dev, status.st_ino))
        folders[:] = sorted(f for f in folders if f not in skip)  # the same walk, so the same folder kept, everywhere
        found += [os.path.join(root, f) for f in files if os.path.isfile(os.path.join(root, f))]
    return found


def sha256_of(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def architecture_flags(architectures: str) -> List[str]:
    """nvcc flags for a CMake CUDA_ARCHITECTURES value: "90" is SASS and PTX,
    "90-real" SASS only, "90-virtual" PTX only; native/all/all-major as in nvcc."""
    flags = []
    for entry in filter(None, architectures.split(";")):
        if entry in ("native", "all", "all-major"):
            flags.append(f"-arch={entry}")
            continue
        number, _, kind = entry.partition("-")
        codes = {"real": [f"sm_{number}"], "virtual": [f"compute_{number}"]}.get(
            kind, [f"compute_{number}", f"sm_{number}"])
        flags.append(f"--generate-code=arch=compute_{number},code=[{','.join(codes)}]")
    return flags


def load_kit(path: str) -> Kit:
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except FileNotFoundError:
        raise KitError(f"{path} does not exist") from None
    except (OSError, ValueError) as error:
        raise KitError(f"cannot read {path}: {error}") from None
    try:
        kit = Kit(**data, path=path)
    except TypeError as error:
        raise KitError(f"{path} is not a grading kit: {error}") from None
    missing = [p for p in [kit.grader, kit.runner, kit.reference] + kit.table_objects + [kit.reference_as_student]
               if p and not os.path.isfile(p)]
    if missing:
        raise KitError(f"{path} names files that are not built: {', '.join(missing)}")
    return kit
