"""One submission, from the student's folder to an outcome: staged alone in a
private folder, scanned, compiled against the pristine lab, run by the lab's
grader in a process of its own (which runs the student's code in a sandboxed
runner process), and classified.

An outcome (Outcome, below) is stored as students/<row folder>/outcome.json once it
is final. Scores are not part of it: they are computed from it with the points table
when the reports are written, so a changed table re-scores every row.
"""
from __future__ import annotations

import hashlib
import json
import os
import secrets
import shutil
import time
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, TypedDict

from . import lock, scan
from .kit import Kit, device_code_of
from .layouts import Submission, SourceError, read_source, student_names  # noqa: F401 (student_names: tests)
from .sandbox import CompileSandbox, Finished, RunnerSandbox, run_limited, write_words
from .statuses import Status


class Outcome(TypedDict, total=False):
    """What grading one submission found: what outcome.json holds, and what the reports,
    the exports and --resume read. JSON's types, so that it is stored as it is."""
    # Who (Submission.identity(): the empty ones left out)
    student: str          # the row's name, unique in the gradebook
    key: str              # which submission: its own name in SUBMISSIONS (what --resume matches)
    row_folder: str       # its folder under OUT/students
    student_id: str       # the layout's id (Canvas user id, Gradescope SID, GitHub user), if any
    id_kind: str          # what student_id is
    email: str            # Gradescope's
    members: List[Dict[str, str]]  # a Gradescope group's students
    note: str             # how its file was found, where not exactly (a near name, a late mark)
    # What happened
    status: str           # a statuses.Status value
    detail: str           # the status in words, for the student
    checks: List[Dict[str, Any]]   # the lab grader's check rows that ran (results.json's)
    running: Optional[str]         # the check a killed or crashed run was in
    gpu_trouble: Optional[Dict[str, Any]]  # what the lab grader saw go wrong on the GPU
    gpu: Dict[str, Any]   # the GPU that graded it (gpus.describe)
    source_sha256: str    # the file graded (a changed file is graded again by --resume)
    library: str          # the compiled build, while it waits to run
    compile_seconds: float
    run_seconds: float


# Every status but these is final: --resume keeps the row. An ambiguous file is not final:
# no file was graded, and which one to grade is the instructor's to say (rename it, then
# --resume), so it exports empty, never as a zero. An unreadable file is final: the
# student's submission cannot be used (a damaged or refused zip, a file too large).
NOT_FINAL = {Status.NO_GPU, Status.GPU_FAILED, Status.COMPILED, Status.NOT_GRADED_YET, Status.AMBIGUOUS}
# Final rows settled before any GPU run, by the compiler (its flags and architectures
# matter), and by reading the folder (nothing of the kit matters).
SETTLED_BY_COMPILING = {Status.FORBIDDEN, Status.COMPILE_ERROR, Status.COMPILE_TIMEOUT}
SETTLED_WITHOUT_GPU = {Status.MISSING, Status.UNREADABLE} | SETTLED_BY_COMPILING

# The lab grader's exit codes (common/memlab/grading/main.cpp, printed by --contract; the
# grader.contract test checks that these copies agree).
GRADER_ALL_PASSED, GRADER_SOME_FAILED, GRADER_BAD_INPUT, GRADER_GPU_FAILED, GRADER_GPU_LOST = 0, 1, 2, 3, 4
GRADER_STUDENT_UNLOADABLE = 5
GRADER_NO_GPU = 77
# What the lab grader saw go wrong in the student's runner (results' gpu_trouble.kind), and
# the status it gives. The lab grader carries on after it with a fresh runner, so later
# checks still count.
TROUBLE_STATUS = {
    "crashed": Status.CRASHED,
    "timed_out": Status.TIMED_OUT,
    "context_lost": Status.GPU_ERROR,
    "left_work_running": Status.LEFT_GPU_WORK,
    "ran_while_stopped": Status.RAN_WHILE_STOPPED,
    "memory_exhausted": Status.GPU_MEMORY,
}
SANITIZER_FOUND_ERRORS = 86  # passed to compute-sanitizer as --error-exitcode
# Under the sanitizer, only checks that neither time kernels nor run deliberately buggy ones.
SANITIZE_FILTER = "~[timing]~[buggy_kernels]"


@dataclass
class Limits:
    compile_seconds: float = 180.0
    run_seconds: float = 60.0
    sanitize_seconds: float = 300.0
    output_bytes: int = 1 << 20

    def call_seconds(self, sanitizer: bool = False) -> float:
        """The longest one call of the student's code may take (the lab grader's
        --call-timeout): a third of the run's limit, so that a hanging call ends
        its runner and leaves time for the checks after it."""
        return max(5.0, (self.sanitize_seconds if sanitizer else self.run_seconds) / 3)


class Layout:
    """Where things go in OUT: students/<row folder>/ for what the instructor and
    the student read, .work/ (private) for staging and the kit's copy.

    A row's folder is Submission.row_folder, made from the submission's own name in
    SUBMISSIONS, never from the student's name; its stage is a hash of that: the paths
    the compiler, the lab grader and the sandbox are given hold no text a student chose
    (nvcc runs its sub-tools through /bin/sh, and a make-style dependency file splits at
    ': '), and each has a length any file system takes."""

    def __init__(self, out: str):
        self.out = out
        self.work = os.path.join(out, ".work")

    def student_dir(self, row_folder: str) -> str:
        return os.path.join(self.out, "students", row_folder)

    def stage_dir(self, row_folder: str) -> str:
        return os.path.join(self.work, "stage", hashlib.sha256(row_folder.encode("utf-8")).hexdigest()[:16])

    def outcome_path(self, row_folder: str) -> str:
        return os.path.join(self.student_dir(row_folder), "outcome.json")


def write_text_atomically(path: str, text: str) -> None:
    """Writes @p text to @p path through a temporary file beside it, flushed to
    the disk before it takes the name: an interrupted grader (or a crash of the
    machine) leaves the old file or the new one, never half of one."""
    temporary = f"{path}.partial"
    with open(temporary, "w", encoding="utf-8", newline="") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)


def write_json_atomically(path: str, data) -> None:
    write_text_atomically(path, json.dumps(data, indent=1))


def stored_outcome(layout: Layout, submission: Submission) -> Optional[Outcome]:
    """The outcome stored for @p submission, final or not; None if there is none, or if
    the one in its folder is another submission's (its key differs)."""
    try:
        with open(layout.outcome_path(submission.row_folder), encoding="utf-8") as handle:
            outcome = json.load(handle)
    except (OSError, ValueError):
        return None
    if not isinstance(outcome, dict) or outcome.get("key") != submission.key:
        return None
    # Who it is and how its file was found, as this run's look at SUBMISSIONS says (a
    # row's name may be numbered differently now that another submission has come).
    return dict(outcome, **submission.identity())


def read_outcome(layout: Layout, submission: Submission) -> Optional[Outcome]:
    """The final outcome stored for @p submission (what --resume keeps), or None: also
    when the file it has now is not the one the row was settled on (a fix or a late file
    put in the folder since, or the file gone)."""
    outcome = stored_outcome(layout, submission)
    if outcome is None or outcome.get("status") in NOT_FINAL:
        return None
    return outcome if outcome.get("source_sha256") == source_digest(submission) else None


def source_digest(submission: Submission) -> Optional[str]:
    """The SHA-256 of the lab's file as an outcome keeps it; None where there is no file
    to read (missing, unreadable), as an outcome settled without one has none."""
    if submission.source is None:
        return None
    try:
        return hashlib.sha256(read_source(submission)).hexdigest()
    except SourceError:
        return None


def save_outcome(layout: Layout, outcome: Outcome) -> None:
    """Written atomically: an interrupted grader leaves a whole outcome or none."""
    write_json_atomically(layout.outcome_path(outcome["row_folder"]), outcome)


def _outcome(student: str, status: str, detail: str = "", **more) -> Outcome:
    return Outcome(student=student, status=status, detail=detail, checks=[], running=None,
                gpu_trouble=None, **more)


def tail_of(text: str, lines: int = 25) -> str:
    kept = text.strip().splitlines()
    return "\n".join(kept[-lines:] if len(kept) > lines else kept)


def _compiler_errors(text: str, lines: int = 20) -> str:
    """The compiler's first error lines: where the trouble starts."""
    kept = [line for line in text.splitlines() if line.strip()]
    first = next((i for i, line in enumerate(kept) if "error" in line), 0)
    return "\n".join(kept[first:first + lines])


def prepare(submission: Submission, kit: Kit, layout: Layout, limits: Limits,
            confine: Optional[CompileSandbox] = None) -> Outcome:
    """Stages, scans and compiles one submission: an outcome whose status is
    Status.COMPILED, ambiguous (for the instructor to resolve), or final (missing, unreadable,
    forbidden, compile error).
    The outcome keeps who it is (id, e-mail) and how its file was found (note).
    Trouble of the grader's own (a full disk) gives that row a grader error, not a crash."""
    try:
        outcome = _prepare(submission, kit, layout, limits, confine)
    except OSError as error:
        outcome = _outcome(submission.student, Status.GRADER_ERROR, f"the grader could not stage or compile this "
                                                                    f"submission: {error.strerror or error}")
    return dict(outcome, **submission.identity())


def _prepare(submission: Submission, kit: Kit, layout: Layout, limits: Limits,
             confine: Optional[CompileSandbox]) -> Outcome:
    student = submission.student
    os.makedirs(layout.student_dir(submission.row_folder), exist_ok=True)
    if submission.source is None:
        status, detail = submission.problem or (Status.MISSING, f"no {kit.skeleton} in the student's folder")
        return _outcome(student, status, detail)
    stage = layout.stage_dir(submission.row_folder)
    shutil.rmtree(stage, ignore_errors=True)
    os.makedirs(stage, mode=0o700)
    try:
        raw = read_source(submission)
    except SourceError as error:
        return _outcome(student, Status.UNREADABLE, f"cannot read {kit.skeleton}: {error}")
    # nvcc takes any bytes in comments and strings (a Latin-1 comment compiles), so
    # the file is compiled as it is. The scan reads it as nvcc does: UTF-8, each
    # byte that is not part of one a replacement character (a Latin-1 reading
    # would turn the two bytes of an é into two characters nvcc never sees).
    text = raw.decode("utf-8", errors="replace")
    # Only the one file is taken, under the lab's own file name.
    source = os.path.join(stage, kit.skeleton)
    with open(source, "wb") as handle:
        handle.write(raw)
    digest = hashlib.sha256(raw).hexdigest()

    findings = scan.scan_source(text, kit.forbid)
    if findings:
        return _outcome(student, Status.FORBIDDEN, scan.describe(findings), source_sha256=digest)

    library = os.path.join(stage, f"lib{kit.lab}_student.so")
    dependencies = os.path.join(stage, "dependencies.d")
    log = os.path.join(layout.student_dir(submission.row_folder), "compile.log")
    finished, kept = kit.compile(source, library, dependencies, log_path=log,
                                             time_limit=limits.compile_seconds, output_limit=limits.output_bytes,
                                             prefix=confine.words(stage) if confine else ())
    seconds = round(finished.seconds, 2)
    if finished.timed_out:
        return _outcome(student, Status.COMPILE_TIMEOUT, f"the compiler ran for more than {limits.compile_seconds:.0f} s",
                        source_sha256=digest, compile_seconds=seconds)
    if finished.exit_code != 0 or not os.path.isfile(library):
        # Paths inside the private staging folder mean nothing to the student: name the file only.
        output = finished.text().replace(stage + os.sep, "")
        with open(log, "w", encoding="utf-8") as handle:
            handle.write(output)
        return _outcome(student, Status.COMPILE_ERROR, _compiler_errors(output),
                        source_sha256=digest, compile_seconds=seconds)
    with open(dependencies, encoding="utf-8", errors="replace") as handle:
        read = scan.read_dependencies(handle.read(), target=library)
    findings = scan.check_dependencies(
        read, source=source, allowed_headers=kit.allowed_headers(),
        private_dirs=[kit.source_dir, layout.out, submission.folder or os.path.dirname(submission.source)],
        forbidden_libraries=kit.forbid)
    if findings:
        return _outcome(student, Status.FORBIDDEN, scan.describe(findings), source_sha256=digest,
                        compile_seconds=seconds)
    if not kept:
        return _outcome(student, Status.GRADER_ERROR, "nvcc compiled the file but did not keep its device code, "
                        "preprocessed text and host code, which the method checks and the scan read",
                        source_sha256=digest, compile_seconds=seconds)
    findings = kit.scan_build(source, library)
    if findings:
        return _outcome(student, Status.FORBIDDEN, scan.describe(findings) + " (read in the compiled file)",
                        source_sha256=digest, compile_seconds=seconds)
    return _outcome(student, Status.COMPILED, source_sha256=digest, compile_seconds=seconds, library=library)


def _grader_command(kit: Kit, library: str, stage: str, results: str, report: str, seed: int,
                    call_seconds: float, sandbox_file: Optional[str]) -> List[str]:
    command = [kit.grader, "--student", library, "--reference", kit.reference, "--runner", kit.runner,
               "--call-timeout", f"{call_seconds:g}", "--results", results, "--report", report,
               "--output-dir", os.path.join(stage, "output"), "--seed", str(seed), "--require-machine-code"]
    if os.path.isfile(device_code_of(library)):
        # The method checks read the file's own device code; its runner lets the build register
        # that and the table's, and nothing else (registered_code.hpp).
        command += ["--student-code", device_code_of(library), "--allowed-code", device_code_of(library)]
        command += [word for code in kit.table_code for word in ("--allowed-code", code)]
    return command + (["--sandbox", sandbox_file] if sandbox_file else [])


def _read_results(path: str) -> Optional[dict]:
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, ValueError):
        return None


# How long a run the GPU failed (Status.GPU_FAILED) waits before it is tried once more.
GPU_FAILED_PAUSE_SECONDS = 5.0


def grade_build(kit: Kit, student: str, library: str, *, stage: str, keep_dir: str, limits: Limits, seed: int,
                sanitizer: str = "", sandbox: Optional[RunnerSandbox] = None) -> Outcome:
    """Runs the lab's grader on @p library (after the memory-checking pass when
    @p sanitizer names compute-sanitizer), the student's runner in @p sandbox
    unless it is None, and classifies what happened. A run that ended with the GPU
    failed before the student's code started is tried once more after a pause: what
    the previous row left behind (memory its processes were still giving back) or a
    passing fault then stops no GPU's grading (red team 11); a second failure does."""
    outcome = _grade_build_once(kit, student, library, stage=stage, keep_dir=keep_dir, limits=limits, seed=seed,
                                sanitizer=sanitizer, sandbox=sandbox)
    if outcome.get("status") == Status.GPU_FAILED:
        time.sleep(GPU_FAILED_PAUSE_SECONDS)
        outcome = _grade_build_once(kit, student, library, stage=stage, keep_dir=keep_dir, limits=limits,
                                    seed=seed, sanitizer=sanitizer, sandbox=sandbox)
    return outcome


def _grade_build_once(kit: Kit, student: str, library: str, *, stage: str, keep_dir: str, limits: Limits,
                      seed: int, sanitizer: str = "", sandbox: Optional[RunnerSandbox] = None) -> Outcome:
    if sanitizer:
        gate = _run_grader(kit, student, library, stage=stage, keep_dir=keep_dir, limits=limits, seed=seed,
                           sanitizer=sanitizer, sandbox=sandbox)
        if gate["status"] != Status.GRADED:
            return gate
    return _run_grader(kit, student, library, stage=stage, keep_dir=keep_dir, limits=limits, seed=seed,
                       sandbox=sandbox)


def _run_grader(kit: Kit, student: str, library: str, *, stage: str, keep_dir: str, limits: Limits, seed: int,
                sanitizer: str = "", sandbox: Optional[RunnerSandbox] = None) -> Outcome:
    # A fresh name each run: the results come from this file, never from what the program prints.
    results = os.path.join(stage, f"results-{secrets.token_hex(8)}.json")
    report = os.path.join(stage, "report.txt")
    sandbox_file = None
    if sandbox is not None:
        # In the private stage folder, which the runner's sandbox hides like the rest of OUT.
        sandbox_file = os.path.join(stage, "sandbox-memcheck.txt" if sanitizer else "sandbox.txt")
        write_words(sandbox_file, sandbox.words(library, sanitizer=bool(sanitizer)))
    command = _grader_command(kit, library, stage, results, report, seed, limits.call_seconds(bool(sanitizer)),
                              sandbox_file)
    if sanitizer:
        # API errors are not memory errors, and the lab grader makes some on purpose (it asks the
        # driver about pointers that may not be device memory): only kernels' accesses count.
        command = [sanitizer, "--tool", "memcheck", "--error-exitcode", str(SANITIZER_FOUND_ERRORS),
                   "--report-api-errors", "no", "--print-limit", "10", "--leak-check", "no"] + command + [SANITIZE_FILTER]
    log = os.path.join(keep_dir, "sanitizer.log" if sanitizer else "run.log")
    env = dict(os.environ, NO_COLOR="1")
    # The lab grader holds OUT's lock with grade.py (lock.py); it gives no descriptor but
    # the socket to the student's runner.
    finished = run_limited(command, log_path=log, cwd=stage, env=env, output_limit=limits.output_bytes,
                           time_limit=limits.sanitize_seconds if sanitizer else limits.run_seconds,
                           pass_fds=lock.held_fds())
    data = _read_results(results)
    if not sanitizer:
        for name, target in ((results, "lab-results.json"), (report, "lab-report.txt")):
            if os.path.isfile(name):
                shutil.copyfile(name, os.path.join(keep_dir, target))
    outcome = classify(finished, data, limits, sanitizer=bool(sanitizer))
    # Paths inside the private staging folder mean nothing to the student: name the file only.
    outcome.update(student=student, run_seconds=round(finished.seconds, 2),
                   detail=outcome["detail"].replace(stage + os.sep, ""))
    return outcome


def machine_failure(outcome: Outcome) -> str:
    """Why the grading machine, not the submission, ended this run; "" when it did not.
    The one rule by which grade.py on one GPU, each --gpus worker and each Slurm task
    stop grading: the lab grader found no usable GPU (exit 77), or its GPU or the
    reference's runner failed before the student's runner started (exit 3). Nothing of
    the student's was judged, so the row is not final, and this GPU gets no more rows."""
    if outcome.get("status") not in (Status.NO_GPU, Status.GPU_FAILED):
        return ""
    lines = (outcome.get("detail") or "").strip().splitlines()
    said = [line for line in lines if "grader:" in line] or lines  # the lab grader's own words
    what = "no usable GPU" if outcome["status"] == Status.NO_GPU else "the GPU failed before the checks"
    return f"{what}{': ' + said[-1] if said else ''}"


def classify(finished: Finished, results: Optional[dict], limits: Limits, sanitizer: bool = False) -> Outcome:
    """What a grader run's ending and its results file say happened. The lab
    grader runs none of the student's code (its runner does), so what it
    reports, its exit code and the trouble it saw in the runner, is trusted."""
    checks = (results or {}).get("checks", [])
    running = (results or {}).get("running")
    trouble = (results or {}).get("gpu_trouble")
    during = f" during {running}" if running else ""
    base = dict(checks=checks, running=running, gpu_trouble=trouble, facts=(results or {}).get("facts", {}))
    if finished.output_exceeded:
        return dict(base, status=Status.OUTPUT_LIMIT, detail=f"printed more than {limits.output_bytes} bytes{during}")
    if finished.timed_out:
        seconds = limits.sanitize_seconds if sanitizer else limits.run_seconds
        where = " (under compute-sanitizer)" if sanitizer else ""
        return dict(base, status=Status.TIMED_OUT, detail=f"still running after {seconds:.0f} s{during}{where}")
    if finished.signal_number is not None:
        return dict(base, status=Status.CRASHED, detail=f"{finished.signal_name()}{during}")
    code = finished.exit_code
    if sanitizer and code == SANITIZER_FOUND_ERRORS:
        # Its lines may follow the lab grader's unfinished progress line ("step 1 ... ========= Invalid").
        errors = [line[line.index("========="):] for line in finished.text().splitlines() if "=========" in line]
        return dict(base, status=Status.MEMORY_ERROR, checks=[],
                    detail="compute-sanitizer memcheck found errors:\n" + "\n".join(errors[:12]))
    if code == GRADER_NO_GPU:
        return dict(base, status=Status.NO_GPU, detail="")
    if code == GRADER_GPU_FAILED:
        # Before the student's runner started: the GPU, or the reference's runner, failed.
        return dict(base, status=Status.GPU_FAILED, detail=tail_of(finished.text(), 8))
    if code == GRADER_STUDENT_UNLOADABLE:
        # The runner's own message (dlopen's, or a missing function's) ends the log.
        return dict(base, status=Status.NOT_LOADABLE, detail=tail_of(finished.text(), 12))
    if code == GRADER_GPU_LOST:
        message = (trouble or {}).get("message", "the GPU context was lost")
        where = (trouble or {}).get("check", "")
        return dict(base, status=Status.GPU_ERROR, detail=f"{message}{' after ' + where if where else ''}")
    if code in (GRADER_ALL_PASSED, GRADER_SOME_FAILED) and results and results.get("complete"):
        if not trouble:
            return dict(base, status=Status.GRADED, detail="")
        kind, message, where = trouble.get("kind", ""), trouble.get("message", ""), trouble.get("check", "")
        if kind not in TROUBLE_STATUS:
            return dict(base, status=Status.GRADER_ERROR, detail=f"the lab grader reported trouble of an unknown kind "
                                                          f"'{kind}': {message}")
        # Hoarded memory is found after a check; the runner's troubles happen in one.
        at = f" ({'after' if kind == 'memory_exhausted' else 'in'} {where})" if where else ""
        return dict(base, status=TROUBLE_STATUS[kind], detail=f"{message}{at}")
    if code == GRADER_BAD_INPUT:
        return dict(base, status=Status.GRADER_ERROR, detail=tail_of(finished.text(), 8))
    return dict(base, status=Status.GRADER_ERROR,
                detail=f"the lab grader ended with exit status {code} before its checks finished{during}:\n"
                       f"{tail_of(finished.text(), 8)}")
