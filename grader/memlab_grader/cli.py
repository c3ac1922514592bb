"""grader/grade.py: grade a folder of student submissions of one lab.

Exit codes:
  0  every submission has a final row (whatever its score)
  1  some rows are not final: compiled but not run, since this machine has no
     GPU (or it stopped being usable); run again with --resume on a GPU. Or a
     row's file is ambiguous: rename the one to grade, then --resume
  2  bad command line or input (nothing was written)
  3  the lab could not be set up: its build failed, the reference solution
     does not pass on this GPU (a problem of the machine, not of the students),
     or the runners' sandbox cannot start here (and --no-sandbox was not given)
  130 interrupted: finished rows are kept; run again with --resume
"""
from __future__ import annotations

import argparse
import concurrent.futures
import datetime
import glob
import hashlib
import json
import os
import platform
import secrets
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from typing import Dict, List, Optional, Tuple, TypeVar

from . import gpus, grading, layouts, lock, points, reports, slurm, workers
from .kit import Kit, KitError, load_kit
from .sandbox import CompileSandbox, RunnerSandbox, find_bwrap, kill_all, probe
from .statuses import Status

SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXIT_DONE, EXIT_NOT_FINAL, EXIT_BAD_INPUT, EXIT_SETUP, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
# The run time limit, unless given: this many times the reference's own run, and at least the floor.
RUN_LIMIT_FACTOR, RUN_LIMIT_FLOOR = 3.0, 15.0


class BadInput(Exception):
    """A mistake in the command line or its folders; nothing has been written."""


class SetupFailed(Exception):
    """The lab itself cannot be graded on this machine."""


def parse_arguments(argv: List[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="grade.py",
        description="Grade a class's submissions of one lab: each student's file (a folder or zip per "
                    "student, GitHub Classroom clones, or Canvas's or Gradescope's download: found by itself) "
                    "is compiled against the pristine lab and graded by the lab's grader on this machine's GPUs.",
        epilog="Exit codes: 0 every submission has a final row; 1 some rows are not final (compiled but not "
               "run: no GPU; or an ambiguous file to resolve); 2 bad command line or input; "
               "3 the lab cannot be set up here (build failed, the "
               "reference does not pass on this GPU, or the sandbox cannot start); 130 interrupted (finished rows "
               "kept: use --resume). "
               "Outputs in OUT: gradebook.csv, summary.md, summary.html, run.json, export/, students/<submission>/.")
    parser.add_argument("--lab", required=True, help="the lab: 1..5 or lab1..lab5")
    parser.add_argument("--submissions", required=True, metavar="DIR",
                        help="the class's submissions, in any layout grader/README.md lists (one folder per student, ...)")
    parser.add_argument("--out", required=True, metavar="DIR", help="where the results go (new, or with --resume)")
    parser.add_argument("--build", default=os.path.join(SOURCE_DIR, "build"), metavar="DIR",
                        help="the configured CMake build folder (default: build/ of this checkout)")
    parser.add_argument("--kit", metavar="FILE", help="a grading kit to use as it is, without building (tests)")
    parser.add_argument("--points", metavar="FILE", help="overrides of the lab's points table (same format)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="compiles at once (default: CPU cores)")
    parser.add_argument("--resume", action="store_true", help="keep OUT's finished rows and grade the rest")
    parser.add_argument("--sanitize", action="store_true",
                        help="first run each submission's correctness checks under compute-sanitizer memcheck; "
                             "memory errors end its grading")
    parser.add_argument("--seed", type=int, default=None,
                        help="seed of the random inputs (default: a new one for each run, kept in run.json; "
                             "--resume reuses the run's)")
    parser.add_argument("--compile-timeout", type=float, default=180.0, metavar="S", help="per compile (default 180)")
    parser.add_argument("--run-timeout", type=float, metavar="S",
                        help=f"per grader run (default: {RUN_LIMIT_FACTOR:g}x the reference's run, at least "
                             f"{RUN_LIMIT_FLOOR:g} s)")
    parser.add_argument("--output-limit", type=int, default=1 << 20, metavar="BYTES",
                        help="most output kept per compile or run; more stops it (default 1 MiB)")
    parser.add_argument("--no-sandbox", action="store_true",
                        help="run students' code without the bubblewrap (bwrap) sandbox, where bwrap cannot run: "
                             "their code still runs in a process of its own, but with your user's rights (it can "
                             "read the course, OUT, the submissions and your files, and use the network); "
                             "recorded in run.json and the summary")
    workers.add_arguments(parser)
    args = parser.parse_args(argv)
    # Folders relative to where grade.py was started: every later use runs in other
    # folders (the lab grader in its stage), so each is made absolute once, here.
    for name in ("out", "submissions", "build", "kit", "points"):
        if getattr(args, name, None):
            setattr(args, name, os.path.abspath(getattr(args, name)))
    for name in ("jobs", "compile_timeout", "output_limit"):
        if getattr(args, name) <= 0:
            parser.error(f"--{name.replace('_', '-')} must be positive")
    if args.run_timeout is not None and args.run_timeout <= 0:
        parser.error("--run-timeout must be positive")
    if workers.check_arguments(args):
        parser.error(workers.check_arguments(args))
    return args


def known_labs() -> List[str]:
    """Every lab of labs/ (its lab<N>_<topic> folders), as CMake registers them."""
    return sorted(os.path.basename(path).split("_")[0] for path in glob.glob(os.path.join(SOURCE_DIR, "labs", "lab*_*")))


def lab_name(text: str) -> str:
    name = text if text.startswith("lab") else f"lab{text}"
    known = known_labs()
    if name not in known:
        raise BadInput(f"there is no lab '{text}'; the labs are {', '.join(known)}")
    return name


def check_folders(args: argparse.Namespace) -> None:
    if not os.path.isdir(args.submissions):
        raise BadInput(f"--submissions {args.submissions}: no such folder")
    if not os.access(args.submissions, os.R_OK | os.X_OK):
        raise BadInput(f"--submissions {args.submissions}: cannot be read")
    out = args.out
    if args.resume:
        if not os.path.isfile(os.path.join(out, "run.json")):
            raise BadInput(f"--resume: {out} holds no earlier run of the grader (no run.json)")
    elif os.path.exists(out) and (not os.path.isdir(out) or os.listdir(out)):
        raise BadInput(f"--out {out} already exists and is not empty: give a new folder, or --resume to finish "
                       f"the run in it")
    if os.path.realpath(out).startswith(os.path.realpath(args.submissions) + os.sep):
        raise BadInput("--out must not be inside --submissions (it would be taken for a student)")


def run_seed(args: argparse.Namespace) -> int:
    """The seed of the correctness checks' inputs: the resumed run's, or a new
    one. A fixed default would be known to students in advance (it is in the
    source), and inputs known in advance can be answered without the work."""
    if args.resume:
        seed = json.loads(reports.read_text(os.path.join(args.out, "run.json"))).get("seed")
        if isinstance(seed, int):
            return seed
    return secrets.randbelow(1 << 62)


def build_kit(args: argparse.Namespace, lab: str) -> Kit:
    if args.kit:
        return usable(load_kit(args.kit))
    if not os.path.isfile(os.path.join(args.build, "CMakeCache.txt")):
        raise BadInput(f"--build {args.build} is not a configured build folder (`make grade` configures it)")
    print(f"Building {lab}'s grader and reference ...", flush=True)
    built = subprocess.run(["cmake", "--build", args.build, "--target", f"{lab}_grading"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if built.returncode != 0:
        raise SetupFailed(f"building {lab} failed:\n{built.stdout[-3000:]}")
    return usable(load_kit(os.path.join(args.build, "grading", lab, "kit.json")))


def usable(kit: Kit) -> Kit:
    """@p kit, if grading with it can make every check: its lab grader reads each
    student's kernels with cuobjdump (the method checks: shared memory in labs 4
    and 5, float in lab 3), so a build that found none cannot grade."""
    if not (kit.cuobjdump and os.access(kit.cuobjdump, os.X_OK)):
        raise SetupFailed("cuobjdump and nvdisasm, which come with the CUDA toolkit, were not found when the lab "
                          f"grader was built{' (not at ' + kit.cuobjdump + ')' if kit.cuobjdump else ''}; it reads "
                          "each student's kernels with them.\n"
                          "Install them (scripts/bootstrap.sh --machine-code fetches NVIDIA's copies from PyPI), then "
                          "configure the build folder again (cmake -S . -B build), or use `make grade`, which does both.")
    return kit


def find_sanitizer(kit: Kit) -> str:
    """compute-sanitizer of the toolkit whose nvcc compiles the submissions, else the one on PATH."""
    beside_compiler = os.path.join(os.path.dirname(kit.compiler), "compute-sanitizer")
    found = beside_compiler if os.access(beside_compiler, os.X_OK) else shutil.which("compute-sanitizer")
    if not found:
        raise BadInput("--sanitize needs compute-sanitizer (part of the CUDA toolkit), and it is not installed here")
    return found


def private_folders(kit: Kit, args: argparse.Namespace) -> List[str]:
    """What students' code must not read, running or compiling: the course (the
    reference's source and build), OUT (other students' builds and results) and
    the submissions."""
    return [kit.source_dir, args.out, args.submissions]


Sandbox = TypeVar("Sandbox", RunnerSandbox, CompileSandbox)


def started(sandbox: Sandbox) -> Tuple[Optional[Sandbox], Optional[str]]:
    """@p sandbox and None if /bin/true runs in it here; else None and why not, in bwrap's words."""
    try:
        why = probe(sandbox.words(None))
    except ValueError as error:
        why = str(error)
    return (None, why) if why else (sandbox, None)


def no_bwrap() -> str:
    return f"bubblewrap (bwrap) is not installed: not on PATH, and not in {os.path.join(SOURCE_DIR, '.deps', 'bin')}"


def runner_sandbox(kit: Kit, args: argparse.Namespace) -> Tuple[Optional[RunnerSandbox], Optional[str]]:
    """The sandbox for the students' runners, and None; or None and why it
    cannot start here, in bwrap's words."""
    bwrap = find_bwrap(SOURCE_DIR)
    if bwrap is None:
        return None, no_bwrap()
    # The home folders too. The runner and the student's build are shown again.
    return started(RunnerSandbox(bwrap, hide=private_folders(kit, args) + ["/home", "/root"], expose=[kit.runner]))


def compile_sandbox(kit: Kit, args: argparse.Namespace) -> Tuple[Optional[CompileSandbox], Optional[str]]:
    """The sandbox for the compiles, and None; or None and why it cannot start
    here (the compiles then run unconfined, as run.json says). They see the
    private folders only where they need them (sandbox.CompileSandbox)."""
    bwrap = find_bwrap(SOURCE_DIR)
    if bwrap is None:
        return None, no_bwrap()
    toolkit = os.path.dirname(os.path.dirname(os.path.realpath(kit.compiler)))  # nvcc's bin/.. (cicc, ptxas, headers)
    return started(CompileSandbox(bwrap, hide=private_folders(kit, args),
                                  expose=[toolkit] + kit.include_dirs + kit.table_objects))


def sandbox_record(sandbox: Optional[RunnerSandbox], reason: str, sanitize: bool) -> dict:
    """run.json's account of how students' code was confined."""
    if sandbox is None:
        return dict(used=False, reason=reason)
    record = dict(used=True, command=sandbox.words(None),
                  and_for_each_student=["--ro-bind", "<the student's build>", "<the student's build>"])
    if sanitize:
        record["memcheck_pass"] = ("without --unshare-net: compute-sanitizer cannot follow a program into a "
                                   "network namespace of its own")
    return record


def source_version() -> str:
    try:
        commit = subprocess.run(["git", "-C", SOURCE_DIR, "describe", "--always", "--dirty"], capture_output=True,
                                text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        commit = ""
    return commit or "unknown"


def tool_lines(command: List[str]) -> List[str]:
    """What @p command prints, line by line (none if it cannot run)."""
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=20).stdout.strip().splitlines()
    except (OSError, subprocess.TimeoutExpired):
        return []


def tool_output(command: List[str]) -> str:
    """All that @p command prints, its lines joined by " | " ("" if it cannot run)."""
    return " | ".join(line.strip() for line in tool_lines(command))


def tool_version(command: List[str]) -> str:
    """The last line @p command prints ("" if none)."""
    lines = tool_lines(command)
    return lines[-1] if lines else ""


class Progress:
    """One line per event on a pipe; a line rewritten in place on a terminal."""

    def __init__(self) -> None:
        self.terminal = sys.stdout.isatty()

    def update(self, text: str) -> None:
        if self.terminal:
            print(f"\r\033[K{text}", end="", flush=True)

    def line(self, text: str) -> None:
        print(f"\r\033[K{text}" if self.terminal else text, flush=True)


def calibrate(kit: Kit, layout: grading.Layout, args: argparse.Namespace, sanitizer: str,
              sandbox: Optional[RunnerSandbox], stage_name: str = "reference") -> dict:
    """Grades the reference as if it were a student (in the students' sandbox,
    when there is one): proves the GPU, the lab and the sandbox work here,
    gives the run time limit, and the reference timings for the run record.
    Returns its outcome (status NO_GPU without a GPU)."""
    stage = os.path.join(layout.work, stage_name)
    os.makedirs(stage, exist_ok=True)
    generous = grading.Limits(run_seconds=600, sanitize_seconds=600, output_bytes=args.output_limit)
    # The reference as the students' compile command builds it: the machine-code
    # checks must pass it too, or grading anyone against it would be unfair.
    outcome = grading.grade_build(kit, "(reference)", kit.reference_as_student, stage=stage, keep_dir=stage,
                                  limits=generous, seed=args.seed, sanitizer=sanitizer, sandbox=sandbox)
    if outcome["status"] == Status.NO_GPU:
        return outcome
    failed = [c["id"] for c in outcome.get("checks", []) if c.get("verdict") != "pass"]
    if outcome["status"] != Status.GRADED or failed:
        hint = ""
        if sandbox is not None and outcome["status"] == Status.NOT_LOADABLE:
            hint = ("The runner could not load the reference in the students' sandbox: does it need a file from a "
                    "folder the sandbox hides (the course, OUT, the submissions, /home, /root)?\n")
        raise SetupFailed(
            f"the reference solution does not pass {kit.lab} on this machine ({outcome['status']}"
            f"{': ' + ', '.join(failed) if failed else ''}; {outcome.get('detail', '')}).\n"
            f"Grading students against it would be unfair. {hint}The end of the grader's output:\n"
            f"{grading.tail_of(reports.read_text(os.path.join(stage, 'run.log')), 30)}")
    return outcome


def compile_all(pending: List[grading.Submission], kit: Kit, layout: grading.Layout, limits: grading.Limits,
                jobs: int, progress: Progress, confine: Optional[CompileSandbox] = None) -> Dict[str, dict]:
    outcomes: Dict[str, grading.Outcome] = {}
    if not pending:
        return outcomes
    print(f"Compiling {len(pending)} submissions, {jobs} at a time ...", flush=True)
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(grading.prepare, s, kit, layout, limits, confine): s.student for s in pending}
        for done, future in enumerate(concurrent.futures.as_completed(futures), 1):
            outcome = future.result()
            outcomes[outcome["student"]] = outcome
            if outcome["status"] != Status.COMPILED:
                grading.save_outcome(layout, outcome)
                progress.line(f"  {outcome['student']}: {outcome['status']}")
            progress.update(f"  compiled {done} of {len(pending)}")
    progress.line(f"  {compiled_summary([o['status'] for o in outcomes.values()])}")
    return outcomes


def compiled_summary(statuses: List[str]) -> str:
    """What the compiles gave, plainly: "none of the 3 is ready to run: 2 compile error, 1 missing file"."""
    ready = statuses.count(Status.COMPILED)
    others = sorted(((n, status) for status, n in Counter(s for s in statuses if s != Status.COMPILED).items()),
                    key=lambda item: (-item[0], item[1]))
    why = ", ".join(f"{n} {status}" for n, status in others)
    if ready == 0:
        return f"none of the {len(statuses)} is ready to run: {why}"
    if not others:
        return f"all {len(statuses)} compiled, ready to run"
    return f"{ready} of {len(statuses)} compiled, ready to run; the others: {why}"


def print_warnings(warnings: List[str], most: int = 20) -> None:
    """What looked wrong in SUBMISSIONS, and the files taken under another name or place."""
    for warning in warnings[:most]:
        print(f"  note: {warning}", flush=True)
    if len(warnings) > most:
        print(f"  ... and {len(warnings) - most} more notes (the gradebook's note column has each row's)", flush=True)


def run_all(compiled: List[dict], kit: Kit, layout: grading.Layout, limits: grading.Limits, args: argparse.Namespace,
            sanitizer: str, sandbox: Optional[RunnerSandbox], table: points.Table,
            progress: Progress) -> Tuple[Dict[str, dict], str]:
    """Grades each compiled submission on the GPU: their outcomes, final or not, and
    why the GPU stopped ("" if it did not). Once a run ends by the machine's failure
    (grading.machine_failure), no more run: that row is stored as it ended (not final)
    and the rest read "not graded yet", for --resume on a working GPU."""
    graded: Dict[str, dict] = {}
    if not compiled:
        return graded, ""
    print(f"Grading {len(compiled)} on the GPU, one at a time (time limit {limits.run_seconds:.0f} s each) ...",
          flush=True)
    width = max(len(o["student"]) for o in compiled)
    maximum = points.total(table)
    for index, outcome in enumerate(compiled, 1):
        student = outcome["student"]
        progress.update(f"  [{index}/{len(compiled)}] {student} ...")
        result = grading.grade_build(kit, student, outcome["library"], stage=layout.stage_dir(outcome["row_folder"]),
                                     keep_dir=layout.student_dir(outcome["row_folder"]), limits=limits, seed=args.seed,
                                     sanitizer=sanitizer, sandbox=sandbox)
        merged = dict(outcome, **result)
        merged.pop("library", None)
        grading.save_outcome(layout, merged)
        graded[student] = merged
        scored = reports.score(merged, table)
        progress.line(f"  [{index:>{len(str(len(compiled)))}}/{len(compiled)}] {student:<{width}}  "
                      f"{merged['status']:<20} {reports.format_points(scored.total):>6} / {reports.format_points(maximum)}"
                      f"  ({merged.get('run_seconds', 0):.1f} s)")
        stopped = grading.machine_failure(merged)
        if stopped:
            print(f"The GPU stopped being usable at {student}'s run ({stopped}): grading stops here; "
                  f"{len(compiled) - index} rows after it are left 'not graded yet'.", file=sys.stderr, flush=True)
            return graded, f"{stopped} (at {student}'s run)"
    return graded, ""


# What a compile reads from its environment besides its command: nvcc's extra flags and host
# compiler, the folders it searches for programs, headers and libraries.
COMPILE_ENVIRONMENT = ("NVCC_PREPEND_FLAGS", "NVCC_APPEND_FLAGS", "NVCC_CCBIN", "PATH", "CPATH", "C_INCLUDE_PATH",
                       "CPLUS_INCLUDE_PATH", "LIBRARY_PATH", "LD_LIBRARY_PATH")
# The kit's keys that settle what a compile produces; with the fingerprint, what grades.
COMPILE_KEYS = ("compile_inputs", "compiler_version", "compile_flags", "architectures")


def kit_record(kit: Kit, compile_seconds: float) -> dict:
    """run.json's account of a kit: what a row's verdict depends on. `compiled_on` is what else
    a compile depends on: the machine (its host compiler and system headers), the environment
    nvcc reads, and the compile time limit (@p compile_seconds)."""
    environment = json.dumps({name: os.environ.get(name) for name in COMPILE_ENVIRONMENT}, sort_keys=True)
    return dict(fingerprint=kit.fingerprint(), compiler=kit.compiler,
                compiler_version=tool_output([kit.compiler, "--version"]), compile_flags=kit.compile_flags,
                architectures=kit.architectures, compile_inputs=kit.compile_inputs(), git=source_version(),
                compiled_on=dict(host=platform.node(), compile_seconds=compile_seconds,
                                 environment=hashlib.sha256(environment.encode()).hexdigest()))


def kit_differences(earlier: dict, now: dict) -> List[str]:
    """What differs between the kits (kit_record) of @p earlier and @p now, in words."""
    if "compile_inputs" not in earlier:
        return ["the earlier run did not record its compile's inputs (an older grader)"]
    said = {"fingerprint": "the kit's binaries (the lab grader, runner, reference or function table)",
            "compile_inputs": "the course's headers, the link flags, the forbidden libraries or the grader's scan",
            "compiler_version": "the compiler", "compile_flags": "the compile flags",
            "architectures": f"the architectures ({earlier.get('architectures')} then, {now['architectures']} now)"}
    changed = [words for key, words in said.items() if earlier.get(key) != now[key]]
    then, here = earlier.get("compiled_on") or {}, now["compiled_on"]
    changed += [words for key, words in (("host", f"the machine ({then.get('host')} then, {here['host']} now)"),
                                         ("environment", "the compiler's environment variables"),
                                         ("compile_seconds", "the compile time limit"))
                if then.get(key) != here[key]]
    return changed


def grader_error_before_running(outcome: dict) -> bool:
    """A grader error in staging or compiling (a full disk, nvcc keeping no device code): the
    grader's trouble, not the student's, and no GPU ran the row; a --resume tries it again."""
    return outcome["status"] == Status.GRADER_ERROR and "run_seconds" not in outcome


def rows_to_keep(kept: Dict[str, dict], earlier: dict, now: dict, lab: str, out: str) -> Tuple[Dict[str, dict], str]:
    """Of an earlier run's final rows, those this run keeps, and why the rest are compiled
    again ("" when none are). With the same kit compiling on the same machine alike, every
    row. Otherwise (a GPU server finishing a run begun on a machine without a GPU, whose build
    targets other architectures and whose host compiler may differ), rows settled without a GPU
    but not those the compiler settled: a compile error, a forbidden API or a compile timeout
    is compiled again, since no record of two machines can show that a compile ends alike on
    both (cheap: they are few). Rows graded on a GPU with another grader or other headers:
    none (refused). A compile timeout, and a grader error before any run, are compiled again in
    any case."""
    if not earlier:
        return kept, ""
    same_grader = all(earlier.get(key) == now[key] for key in ("fingerprint",) + COMPILE_KEYS)
    differences = kit_differences(earlier, now)
    ran = sorted(student for student, outcome in kept.items()
                 if outcome["status"] not in grading.SETTLED_WITHOUT_GPU and not grader_error_before_running(outcome))
    if ran and not same_grader:
        raise SetupFailed(f"{lab}'s kit has changed since the run in {out} began ({'; '.join(differences)}), "
                          f"and {len(ran)} rows ({', '.join(ran[:3])}{', ...' if len(ran) > 3 else ''}) were graded on a "
                          "GPU with the earlier one: --resume would mix two graders' results. Grade into a new folder.")
    # A compile timeout is compiled again even here: a loaded machine may have caused it.
    redo = grading.SETTLED_BY_COMPILING if differences else {Status.COMPILE_TIMEOUT}
    again = sorted(s for s, o in kept.items() if o["status"] in redo or grader_error_before_running(o))
    if not again:
        return kept, ""
    why = (f"their compile differed from this one in {'; '.join(differences)}" if differences else
           "a compile that ran out of time, or that the grader could not stage or read, may succeed now")
    return {s: o for s, o in kept.items() if s not in again}, why


def check_slurm_jobs_ended(earlier: dict, args: argparse.Namespace) -> None:
    """Raises BadInput while a Slurm job that an earlier grade.py --slurm submitted on OUT
    is queued or running: its tasks would grade the rows this run compiles and grades."""
    jobs = slurm.recorded_jobs(earlier)
    try:
        running = slurm.jobs_not_ended(jobs)
    except RuntimeError as error:
        if args.slurm or shutil.which("squeue"):
            raise BadInput(f"--resume: cannot tell whether the Slurm jobs of the run in {args.out} "
                           f"({', '.join(jobs)}) have ended: {error}") from None
        print(f"note: no squeue here to ask whether the Slurm jobs of the run in {args.out} ({', '.join(jobs)}) "
              "have ended; OUT's lock keeps their tasks from running beside this run.", flush=True)
        return
    if running:
        raise BadInput(f"--resume: the Slurm jobs {', '.join(running)} of the run in {args.out} are still queued or "
                       f"running, and would grade its rows beside this run. Wait for them to end (squeue -j "
                       f"{','.join(running)}), or cancel them (scancel {' '.join(running)}), then run again.")


def stop_like_ctrl_c(*_) -> None:
    """SIGTERM (a batch system's stop) ends the run as Ctrl-C does: finished rows kept."""
    raise KeyboardInterrupt


def main(argv: Optional[List[str]] = None) -> int:
    args = parse_arguments(sys.argv[1:] if argv is None else argv)
    try:
        lab = lab_name(args.lab)
        check_folders(args)
        if args.seed is None:
            args.seed = run_seed(args)
        kit = build_kit(args, lab)
        if kit.lab != lab:
            raise BadInput(f"the kit {kit.path} is for {kit.lab}, not {lab}")
        table = points.read_table(kit.points)
        if args.points:
            table = points.with_overrides(table, points.read_table(args.points), args.points)
        sanitizer = find_sanitizer(kit) if args.sanitize else ""
        found = layouts.find(args.submissions, kit.skeleton,
                             os.path.relpath(os.path.join(kit.lab_dir, kit.skeleton), kit.source_dir))
        submissions = found.submissions
        if args.worker_queue:  # one of several workers (workers.py), on its GPU
            return workers.work(args, lab, kit, table, sanitizer)
        if args.reports_only:
            return workers.reports_only(args, lab, table, submissions)
        try:
            dispatcher = workers.dispatcher(args)  # None: graded here, on this machine's GPU
        except ValueError as error:
            raise BadInput(str(error)) from None
    except (BadInput, KitError, points.PointsError, layouts.LayoutError) as error:
        print(f"grade.py: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except SetupFailed as error:
        print(f"grade.py: {error}", file=sys.stderr)
        return EXIT_SETUP

    signal.signal(signal.SIGTERM, stop_like_ctrl_c)
    created_out = not os.path.exists(args.out)
    layout = grading.Layout(args.out)
    os.makedirs(layout.work, mode=0o700, exist_ok=True)
    os.chmod(layout.work, 0o700)
    record_path = os.path.join(args.out, "run.json")
    try:
        lock.hold(args.out)  # for this process's whole life: OUT is one run's at a time
        earlier = json.loads(reports.read_text(record_path)) if args.resume else {}
        check_slurm_jobs_ended(earlier, args)
    except (lock.OutInUse, BadInput) as error:
        print(f"grade.py: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    compiles_began = False
    progress = Progress()
    outcomes: Dict[str, grading.Outcome] = {}
    record: dict = {}
    try:
        try:
            kit = kit.snapshot(os.path.join(layout.work, "kit"))
        except KitError as error:
            raise SetupFailed(str(error)) from None
        this_kit = kit_record(kit, args.compile_timeout)
        for submission in submissions:
            kept = grading.read_outcome(layout, submission) if args.resume else None
            if kept:
                outcomes[submission.student] = kept
        kept_before = set(outcomes)
        outcomes, compile_again_because = rows_to_keep(outcomes, earlier.get("kit", {}), this_kit, lab, args.out)
        # On disk too, before run.json names this kit: an interrupted session must not leave a
        # row settled by another compile beside a record that says this kit settled it.
        to_compile_again = kept_before - set(outcomes)
        for submission in submissions:
            if submission.student in to_compile_again:
                grading.save_outcome(layout, dict(submission.identity(), status=Status.NOT_GRADED_YET, checks=[],
                                                  detail=f"to be compiled again: {compile_again_because}"))
        record = dict(earlier) or dict(
            tool="memlab instructors' grader", lab=lab, version=kit.version, git=source_version(),
            started=datetime.datetime.now().astimezone().isoformat(timespec="seconds"))
        # The kit that grades on the GPU from now on; each session's own is in its entry.
        record.update(kit=this_kit, seed=args.seed, sanitize=args.sanitize, submissions=os.path.abspath(args.submissions),
                      layout=found.layout,
                      points={c: dict(points=r.points, full_at=r.full_at, zero_at=r.zero_at) for c, r in table.items()},
                      points_override=os.path.abspath(args.points) if args.points else None)
        session = dict(started=datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
                       host=platform.node(), cpus=os.cpu_count(), jobs=args.jobs, resumed=args.resume,
                       kit=this_kit["fingerprint"], architectures=kit.architectures, kept_rows=len(outcomes))
        if compile_again_because:
            session["compiled_again"] = f"rows settled by the compiler: {compile_again_because}"
        record.setdefault("sessions", []).append(session)
        # Written now, not only at the end: a session killed outright (SIGKILL, a node lost) leaves
        # a record of the kit its rows are graded with, which the next --resume compares.
        grading.write_json_atomically(record_path, record)

        pending = [s for s in submissions if s.student not in outcomes]
        print(f"{lab}: {len(submissions)} submissions in {args.submissions}"
              f"{f', {len(submissions) - len(pending)} already graded' if args.resume else ''}: {found.layout}.",
              flush=True)
        print_warnings(found.warnings)
        if compile_again_because:
            print(f"Compile errors, forbidden APIs and compile timeouts are compiled again here: {compile_again_because}.",
                  flush=True)

        sandbox, no_sandbox_because = None, "--no-sandbox: the instructor chose to run students' code unconfined"
        if pending and not args.no_sandbox and dispatcher is None:
            sandbox, no_sandbox_because = runner_sandbox(kit, args)
        # Without a working sandbox, the reference alone (the course's own code)
        # runs: it tells whether there is a GPU, and so whether the sandbox matters.
        # With several workers, each calibrates on its own GPU, and checks its own sandbox.
        reference = calibrate(kit, layout, args, sanitizer, sandbox) if pending and dispatcher is None else None
        have_gpu = reference is not None and reference["status"] != Status.NO_GPU
        if pending and dispatcher is None:
            if have_gpu and sandbox is None and not args.no_sandbox:
                raise SetupFailed(
                    f"the sandbox for students' code cannot start here: {no_sandbox_because}\n"
                    "Install bubblewrap (scripts/bootstrap.sh --grading does; scripts/carry-deps.sh carries it to a server "
                    "without network), allow it user namespaces, or grade with --no-sandbox "
                    "(GRADE_ARGS=--no-sandbox) to run students' code unconfined.")
            if not have_gpu and sandbox is None and not args.no_sandbox:
                no_sandbox_because = f"no GPU here, so no student's code ran (and it cannot start: {no_sandbox_because})"
            record["sandbox"] = sandbox_record(sandbox, no_sandbox_because, args.sanitize)
            record["sessions"][-1]["sandbox"] = sandbox is not None
            if sandbox is not None:
                print("Sandbox: each student's code runs under bubblewrap, with no network, its own process, IPC, "
                      "cgroup and user namespaces, no cgroup file system, and the course, OUT, the submissions, "
                      "/home and /root hidden.", flush=True)
                if "--disable-userns" not in sandbox.words(None):
                    print("WARNING: this bubblewrap is older than 0.8 and cannot forbid students' code its own user "
                          "namespaces, in which it can make cgroups; install bubblewrap 0.8 or later.", flush=True)
                if os.geteuid() == 0:
                    # The sandbox's nobody is root to the kernel's permission checks outside it.
                    print("WARNING: grading as root: students' code can read root-only files (read-only) outside "
                          "the hidden folders; grade as an unprivileged user.", flush=True)
            elif have_gpu:
                print("WARNING: --no-sandbox: students' code runs unconfined, with your user's rights.", flush=True)
        limits = grading.Limits(compile_seconds=args.compile_timeout, output_bytes=args.output_limit)
        if have_gpu:
            try:
                points.check_covers(table, [c["id"] for c in reference["checks"]], kit.points)
            except points.PointsError as error:
                raise SetupFailed(str(error)) from None
            limits.run_seconds = args.run_timeout or max(RUN_LIMIT_FLOOR, RUN_LIMIT_FACTOR * reference["run_seconds"])
            limits.sanitize_seconds = 10 * limits.run_seconds  # memcheck slows kernels many times
            record.update(gpu=dict(reference.get("facts", {})), run_time_limit=limits.run_seconds,
                          check_titles={c["id"]: c.get("title", "") for c in reference["checks"]},
                          reference_run=dict(seconds=reference["run_seconds"], checks=[
                              {k: c.get(k) for k in ("id", "verdict", "measured", "reference", "ratio", "values")}
                              for c in reference["checks"]]))
            record["gpu"]["driver"] = tool_version(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"])
            print(f"The reference passes here in {reference['run_seconds']:.1f} s: {record['gpu'].get('GPU', '')}.",
                  flush=True)
            held_by = record["gpu"].get("Runners held by", "")
            if held_by.startswith("signals"):
                print(f"WARNING: runners are held between calls by {held_by}: a submission can arrange to run "
                      "while it should be stopped, and the grader only notices afterwards.", flush=True)
        elif pending and dispatcher is None:
            print("No GPU here: submissions are compiled and scanned, and marked 'not run: no GPU'.", flush=True)

        compiles_began = True
        confine, unconfined_because = (None, "") if args.no_sandbox or not pending else compile_sandbox(kit, args)
        record["sessions"][-1]["compiles_sandboxed"] = confine is not None
        if unconfined_because:
            print(f"WARNING: the compiles run unconfined: {unconfined_because}. A compile can then read any file "
                  "you can (an assembler's .incbin).", flush=True)
        compiled = compile_all(pending, kit, layout, limits, args.jobs, progress, confine)
        outcomes.update(compiled)
        ready = [compiled[s.student] for s in pending if compiled[s.student]["status"] == Status.COMPILED]
        if dispatcher is not None:
            outcomes.update(dispatcher.grade(ready, kit, layout, record, args, lab))
            if dispatcher.reports_later:
                return EXIT_DONE  # submitted: the report job writes the reports once the tasks end
        elif have_gpu:
            graded, stopped = run_all(ready, kit, layout, limits, args, sanitizer, sandbox, table, progress)
            outcomes.update(graded)
            if stopped:
                record["sessions"][-1]["gpu_stopped"] = stopped
        else:
            for outcome in ready:
                outcome.update(status=Status.NO_GPU, detail="compiled; this machine has no GPU to run it")
                outcome.pop("library", None)
                grading.save_outcome(layout, outcome)
        for student, outcome in outcomes.items():  # compiled, and no GPU ran it: never stored
            if outcome["status"] == Status.COMPILED:
                outcomes[student] = {k: v for k, v in outcome.items() if k != "library"}
                outcomes[student].update(status=Status.NOT_GRADED_YET, detail="", checks=[])
        record["sessions"][-1].update(
            finished=datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
            gpu=record["gpu"].get("GPU", "") if have_gpu else None,
            compiled=sorted(compiled),
            graded_on_gpu=sorted(o["student"] for o in ready if o["student"] in outcomes and
                                 outcomes[o["student"]]["status"] not in grading.NOT_FINAL))
        status = EXIT_DONE
    except slurm.SubmitFailed as error:
        # Never lose the compiles to a refused script: OUT and run.json stay, for --resume.
        print(f"grade.py: {error}", file=sys.stderr)
        return EXIT_SETUP
    except (KeyboardInterrupt, SetupFailed) as stop:
        kill_all()
        kept = {s.student: grading.read_outcome(layout, s) for s in submissions}
        kept = {student: outcome for student, outcome in kept.items() if outcome}
        if isinstance(stop, SetupFailed) or not kept:
            if isinstance(stop, SetupFailed):
                print(f"grade.py: {stop}", file=sys.stderr)
            else:
                print("\nInterrupted before any submission was graded.", file=sys.stderr)
            if isinstance(stop, SetupFailed) and compiles_began:
                grading.write_json_atomically(record_path, record)  # what --resume needs
                print("OUT keeps this run's compiles and rows: once the cause is fixed, run the same command with "
                      "--resume (RESUME=1).", file=sys.stderr)
            elif created_out:
                shutil.rmtree(args.out, ignore_errors=True)  # nothing of this run is worth keeping
            return EXIT_SETUP if isinstance(stop, SetupFailed) else EXIT_INTERRUPTED
        print(f"\nInterrupted: {len(kept)} of {len(submissions)} rows are final and kept; run the same command "
              f"with --resume to grade the rest.", file=sys.stderr)
        status = EXIT_INTERRUPTED
        outcomes = kept

    rows = [outcomes.get(s.student) or dict(s.identity(), status=Status.NOT_GRADED_YET, detail="", checks=[])
            for s in submissions]
    gpus.merge_records(layout, record)
    scored = reports.write_reports(layout, lab, rows, table, record)
    graded = sum(r.status == Status.GRADED for r in scored)
    print(f"\n{lab}: {len(scored)} rows, {graded} graded to the end. Gradebook: {os.path.join(args.out, 'gradebook.csv')}; "
          f"summary: {os.path.join(args.out, 'summary.html')}")
    return status if status == EXIT_INTERRUPTED else exit_status([r.status for r in scored])


def exit_status(statuses: List[str]) -> int:
    """EXIT_DONE only when every row is final: a script that sees 0 may hand
    out the grades; 1 says some rows still need a run (--resume on a GPU)."""
    ambiguous = statuses.count(Status.AMBIGUOUS)
    if ambiguous:
        print(f"{ambiguous} rows have an ambiguous file, not graded (their feedback names the files): rename the "
              f"one to grade to the lab's file name, then run the same command with --resume.", file=sys.stderr)
    waiting = [status for status in statuses if status in grading.NOT_FINAL and status != Status.AMBIGUOUS]
    if ambiguous and not waiting:
        return EXIT_NOT_FINAL
    if waiting:
        print(f"{len(waiting)} rows are not final ({', '.join(sorted(set(waiting)))}): run the same command with "
              f"--resume on a machine with a usable GPU.", file=sys.stderr)
        return EXIT_NOT_FINAL
    return EXIT_DONE
