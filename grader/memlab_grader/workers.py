"""Grading on several GPUs: one worker process per GPU.

grade.py compiles every submission first, as it does for one GPU (the compiles
share the CPU cores), then hands the compiled ones to workers:
  --gpus all|0,2   one worker per GPU of this server, each started with
                   CUDA_VISIBLE_DEVICES set to its GPU's UUID; the workers take
                   submissions from one shared queue (claiming each with a file
                   made with O_EXCL), so a fast GPU takes more of them;
  --slurm          one Slurm array task per shard of the queue (slurm.py).
A worker is grade.py itself with --worker-queue: it pins its one GPU (by UUID,
whatever form CUDA_VISIBLE_DEVICES gave it in), calibrates on it (the reference
graded as a student, in the students' sandbox), writes its GPU's run record, and
grades each queued submission whose row is not final yet, alone on its GPU,
until none is left or its GPU fails. Each row is stored as today, atomically,
one file per student, with the GPU that graded it; the reports are written from
the stored rows, so no row is graded twice or lost however the workers end.
"""
from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import os
import platform
import signal
import subprocess
import sys
import time
from typing import Dict, List, Optional

from . import gpus, grading, lock, points, reports
from .kit import Kit
from .sandbox import kill_all
from .statuses import Status

GRADE_PY = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "grade.py")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--gpus", metavar="all|0,1,..",
                        help="grade on several GPUs of this server, one worker each (nvidia-smi's indexes, or all); "
                             "compiles still come first and share the CPU cores")
    parser.add_argument("--mixed-gpus", action="store_true",
                        help="let rows graded on GPUs of different models into one gradebook (refused otherwise)")
    slurm = parser.add_argument_group("Slurm (--slurm: compile here, grade in a job array, one GPU per task)")
    slurm.add_argument("--slurm", action="store_true",
                       help="submit a Slurm job array (one task per shard, --gres=gpu:1 each) and a report job after it")
    slurm.add_argument("--partition", help="the Slurm partition of the grading tasks")
    slurm.add_argument("--account", help="the Slurm account to charge")
    slurm.add_argument("--time-limit", default="02:00:00", metavar="TIME",
                       help="each grading task's Slurm time limit (default 02:00:00)")
    slurm.add_argument("--shard-size", type=int, default=25, metavar="N",
                       help="submissions per array task (default 25)")
    slurm.add_argument("--gres", default="gpu:1", help="what each task asks for (default gpu:1)")
    parser.add_argument("--reports-only", action="store_true",
                        help="write OUT's reports from the rows stored there, grading nothing (the Slurm report job)")
    # A worker's own options, given by the grade.py that starts it.
    parser.add_argument("--worker-queue", metavar="FILE", help=argparse.SUPPRESS)
    parser.add_argument("--worker-claims", metavar="DIR", help=argparse.SUPPRESS)


def check_arguments(args: argparse.Namespace) -> Optional[str]:
    """What is wrong with this module's options, or None."""
    if args.shard_size <= 0:
        return "--shard-size must be positive"
    if args.gpus and args.slurm:
        return "--gpus and --slurm do not go together: a Slurm task grades on the one GPU it is given"
    if (args.worker_queue or args.reports_only) and not args.resume:
        return "--worker-queue and --reports-only need the run's OUT (--resume)"
    return None


def dispatcher(args: argparse.Namespace):
    """Who grades the compiled submissions: None (this process, on its GPU, as before),
    LocalGpus or slurm.SlurmArray. Raises ValueError for GPUs that cannot be used."""
    if args.slurm:
        from .slurm import SlurmArray
        return SlurmArray(args)
    if not args.gpus:
        return None
    available = gpus.list_gpus()
    chosen = gpus.choose(args.gpus, available) if available or args.gpus.strip() != "all" else []
    models = sorted({gpu.name for gpu in chosen})
    if len(models) > 1 and not args.mixed_gpus:
        raise ValueError(f"--gpus {args.gpus}: these GPUs are of different models ({', '.join(models)}); a "
                         f"gradebook holds rows of one model unless you pass --mixed-gpus")
    return LocalGpus(chosen)


def write_kit(kit: Kit, layout: grading.Layout) -> str:
    """The kit of OUT's snapshot, as a file the workers load with --kit."""
    path = os.path.join(layout.work, "kit", "kit.json")
    fields = {f.name: getattr(kit, f.name) for f in dataclasses.fields(kit) if f.name != "path"}
    grading.write_json_atomically(path, fields)
    return path


def worker_command(args: argparse.Namespace, lab: str, kit_file: str, queue: str, claims: str = "",
                   script: bool = False) -> List[str]:
    """grade.py as a worker: the run's lab, folders, kit, seed and limits, and its queue."""
    command = [sys.executable, GRADE_PY, "--lab", lab, "--submissions", args.submissions, "--out", args.out,
               "--kit", kit_file, "--seed", str(args.seed), "--resume", "--worker-queue", queue,
               "--compile-timeout", f"{args.compile_timeout:g}", "--output-limit", str(args.output_limit)]
    if claims:
        command += ["--worker-claims", claims]
    for flag in ("sanitize", "no_sandbox", "mixed_gpus"):
        if getattr(args, flag):
            command.append("--" + flag.replace("_", "-"))
    if args.run_timeout:
        command += ["--run-timeout", f"{args.run_timeout:g}"]
    if args.points:
        command += ["--points", args.points]
    return command


def write_queue(path: str, compiled: List[dict]) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    grading.write_json_atomically(path, compiled)


def stored_outcome(layout: grading.Layout, entry: dict) -> Optional[dict]:
    """The row stored for the queue's @p entry (a compiled outcome); None if there is none,
    or if its folder holds another submission's."""
    try:
        with open(layout.outcome_path(entry["row_folder"]), encoding="utf-8") as handle:
            outcome = json.load(handle)
    except (OSError, ValueError):
        return None
    return outcome if isinstance(outcome, dict) and outcome.get("key") == entry.get("key") else None


def _final(layout: grading.Layout, entry: dict) -> bool:
    outcome = stored_outcome(layout, entry)
    return outcome is not None and outcome.get("status") not in grading.NOT_FINAL


class LocalGpus:
    """One worker process per GPU of this server, over one shared queue."""

    reports_later = False

    def __init__(self, chosen: List[gpus.Gpu]):
        self.chosen = chosen

    def describe(self) -> str:
        return ", ".join(f"GPU {g.index} ({g.name})" for g in self.chosen) or "no GPU found (nvidia-smi lists none)"

    def grade(self, ready: List[dict], kit: Kit, layout: grading.Layout, record: dict, args: argparse.Namespace,
              lab: str) -> Dict[str, dict]:
        record["sessions"][-1]["gpus"] = [gpus.label(g) for g in self.chosen]
        if not ready:
            return {}
        token = datetime.datetime.now().strftime("%Y%m%d-%H%M%S-") + str(os.getpid())
        queue = os.path.join(layout.work, "queues", f"{token}.json")
        claims = os.path.join(layout.work, "claims", token)
        os.makedirs(claims)
        write_queue(queue, ready)
        grading.write_json_atomically(os.path.join(args.out, "run.json"), record)  # the workers' --resume reads it
        command = worker_command(args, lab, write_kit(kit, layout), queue, claims)
        print(f"Grading {len(ready)} on {len(self.chosen) or 1} GPUs, one worker each: {self.describe()} ...",
              flush=True)
        workers = []
        for gpu in self.chosen or [None]:
            env = dict(os.environ)
            if gpu is not None:
                env.update(CUDA_VISIBLE_DEVICES=gpu.uuid, CUDA_DEVICE_ORDER="PCI_BUS_ID")
            # OUT's lock goes with it (lock.py): a grade.py killed with -9 leaves OUT locked while it works.
            held = lock.held_fds()
            env[lock.INHERITED] = str(held[0]) if held else ""
            # Same process group: Ctrl-C at the terminal reaches every worker, as it reaches grade.py.
            workers.append(subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL, pass_fds=held))
        try:
            codes = [worker.wait() for worker in workers]
        except KeyboardInterrupt:
            # Ctrl-C reached the workers too: give them a moment to stop on their own;
            # SIGTERM (a batch system's stop) reached only us.
            for worker in workers:
                try:
                    worker.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    worker.send_signal(signal.SIGTERM)
            for worker in workers:
                worker.wait()
            raise
        failed = [code for code in codes if code == WORKER_SETUP_FAILED]
        if any(code in (130, -signal.SIGINT, -signal.SIGTERM) for code in codes):
            raise KeyboardInterrupt
        outcomes = {o["student"]: stored_outcome(layout, o) for o in ready}
        outcomes = {student: outcome for student, outcome in outcomes.items() if outcome}
        if failed and len(failed) == len(workers) and not any(
                o.get("status") not in grading.NOT_FINAL for o in outcomes.values()):
            from .cli import SetupFailed
            raise SetupFailed("no GPU could grade: each worker's reason is printed above")
        stopped = [code for code in codes if code != 0]
        if stopped:
            for line in gpus.stopped_lines(layout):
                print(f"WARNING: {line}", file=sys.stderr)
            left = sum(o["student"] not in outcomes for o in ready)
            print(f"WARNING: {len(stopped)} of {len(workers)} GPUs stopped or could not grade; "
                  + ("the others took their share." if not left else
                     f"{left} rows no GPU took read 'not graded yet' (--resume grades them)."), file=sys.stderr)
        return outcomes


# A worker's exit codes, besides 0 (done) and 130 (interrupted): it could not be set up
# (its reference failed, its sandbox cannot start, another GPU model); it found no usable
# GPU at its calibration and took no row; its GPU failed after its calibration.
WORKER_SETUP_FAILED, WORKER_NO_GPU, WORKER_GPU_STOPPED = 3, 4, 5


def work(args: argparse.Namespace, lab: str, kit: Kit, table: points.Table, sanitizer: str) -> int:
    """A worker's whole life (grade.py --worker-queue): calibrate on this process's GPU,
    then grade queued submissions whose rows are not final, one at a time, until none is
    left or the GPU fails. Returns the exit code.

    A worker stores only final rows, graded on its GPU while it works. A GPU that cannot
    grade (no usable GPU, or one that fails after its calibration: grading.machine_failure,
    the rule grade.py on one GPU stops by) takes no more rows: the row it was running is
    handed back, and the other workers take the rest; rows no GPU took read "not graded yet"."""
    from . import cli  # cli imports this module
    from .slurm import LOCK_WAIT_SECONDS
    layout = grading.Layout(args.out)
    if args.worker_claims:  # a --gpus worker: its grade.py's lock, passed down, held with it
        lock.adopt_inherited()
    else:  # a Slurm task
        try:
            lock.hold(args.out, shared=True, wait_seconds=LOCK_WAIT_SECONDS)
        except lock.OutInUse as error:
            print(f"grade.py: {error}\nThis task grades nothing: its rows read 'not graded yet'.", file=sys.stderr)
            return WORKER_SETUP_FAILED
    with open(args.worker_queue, encoding="utf-8") as handle:
        queue = json.load(handle)
    try:
        gpu = gpus.visible_gpu()
    except ValueError as error:
        # Grading on an unknown GPU would let a student's sandbox reach every GPU of the node.
        name = f"{platform.node()} CUDA_VISIBLE_DEVICES={os.environ.get('CUDA_VISIBLE_DEVICES', '(not set)')}"
        gpus.save_record(layout, name, dict(label=name, host=platform.node(), trouble=str(error)))
        print(f"[{name}] grade.py: {error}. This worker grades nothing: give it one GPU (Slurm: --gres=gpu:1; "
              "by hand: CUDA_VISIBLE_DEVICES=<its UUID or index>).", file=sys.stderr, flush=True)
        return WORKER_SETUP_FAILED
    if gpu is not None:
        gpus.pin(gpu)
    name = gpus.label(gpu)
    say = lambda text: print(f"[{name}] {text}", flush=True)  # noqa: E731
    signal.signal(signal.SIGTERM, cli.stop_like_ctrl_c)
    gpu_record = dict(label=name, host=platform.node(), index=gpu.index if gpu else None,
                      name=gpu.name if gpu else "", uuid=gpu.uuid if gpu else "",
                      slurm_job=gpus.describe(gpu).get("slurm_job"),
                      started=datetime.datetime.now().astimezone().isoformat(timespec="seconds"))
    try:
        if all(_final(layout, entry) for entry in queue):
            say("every row of this queue is final already")
            return 0
        sandbox, why = (None, "--no-sandbox") if args.no_sandbox else cli.runner_sandbox(kit, args)
        reference = cli.calibrate(kit, layout, args, sanitizer, sandbox,
                                  stage_name="reference-" + name.replace(" ", "-").replace("/", "-"))
        trouble = grading.machine_failure(reference)
        if trouble:
            gpu_record["trouble"] = trouble
            gpus.save_record(layout, name, gpu_record)
            say(f"cannot grade here ({trouble}): this worker takes no row")
            return WORKER_NO_GPU
        if sandbox is None and not args.no_sandbox:
            raise cli.SetupFailed(f"the sandbox for students' code cannot start on {platform.node()}: {why}")
        model = gpu.name if gpu else reference.get("facts", {}).get("GPU", "")
        kept = gpus.claim_model(layout, model, _earlier_model(args.out))
        if kept != model and not args.mixed_gpus:
            raise cli.SetupFailed(f"this GPU is a {model}, but this gradebook's rows are graded on a {kept}: "
                                  f"pass --mixed-gpus to mix GPU models in one gradebook")
        limits = grading.Limits(compile_seconds=args.compile_timeout, output_bytes=args.output_limit)
        limits.run_seconds = args.run_timeout or max(cli.RUN_LIMIT_FLOOR, cli.RUN_LIMIT_FACTOR * reference["run_seconds"])
        limits.sanitize_seconds = 10 * limits.run_seconds
        facts = dict(reference.get("facts", {}))
        facts["driver"] = cli.tool_version(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"])
        gpu_record.update(gpu=facts, run_time_limit=limits.run_seconds,
                          sandbox=cli.sandbox_record(sandbox, why or "", args.sanitize),
                          check_titles={c["id"]: c.get("title", "") for c in reference["checks"]},
                          reference_run=dict(seconds=reference["run_seconds"], checks=[
                              {k: c.get(k) for k in ("id", "verdict", "measured", "reference", "ratio", "values")}
                              for c in reference["checks"]]))
        gpus.save_record(layout, name, gpu_record)
        say(f"the reference passes in {reference['run_seconds']:.1f} s; grading ({limits.run_seconds:.0f} s limit each)")
        maximum = points.total(table)
        where = gpus.describe(gpu)
        taken: set = set()
        graded = 0
        while True:
            index = _next_row(args.worker_claims, queue, layout, taken)
            if index is None:
                return 0
            entry = queue[index]
            student = entry["student"]
            result = grading.grade_build(kit, student, entry["library"], stage=layout.stage_dir(entry["row_folder"]),
                                         keep_dir=layout.student_dir(entry["row_folder"]), limits=limits,
                                         seed=args.seed,
                                         sanitizer=sanitizer, sandbox=sandbox)
            merged = dict(entry, **result, gpu=where)
            merged.pop("library", None)
            trouble = grading.machine_failure(merged)
            if trouble:
                _hand_back(args.worker_claims, index)
                gpu_record["stopped"] = f"{trouble} (at {student}'s run, after {graded} rows)"
                gpus.save_record(layout, name, gpu_record)
                say(f"this GPU stopped being usable at {student}'s run ({trouble}): it takes no more rows; "
                    f"the other GPUs take the rest (rows none takes read 'not graded yet')")
                return WORKER_GPU_STOPPED
            grading.save_outcome(layout, merged)
            graded += 1
            scored = reports.score(merged, table)
            say(f"{student}  {merged['status']}  {reports.format_points(scored.total)} / "
                f"{reports.format_points(maximum)}  ({merged.get('run_seconds', 0):.1f} s)")
    except cli.SetupFailed as error:
        gpu_record["trouble"] = str(error).splitlines()[0]
        gpus.save_record(layout, name, gpu_record)
        print(f"[{name}] grade.py: {error}", file=sys.stderr, flush=True)
        return WORKER_SETUP_FAILED
    except KeyboardInterrupt:
        # The row being graded is not stored: it reads "not graded yet", and --resume grades it.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        kill_all()
        say("interrupted")
        return 130


def _claim(folder: Optional[str], index: int) -> bool:
    """Whether this worker takes queue entry @p index: with a claims folder, only the
    first worker to create its file (which holds its process id) does; without one (a
    Slurm task's own shard), always."""
    if not folder:
        return True
    try:
        handle = os.open(os.path.join(folder, str(index)), os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except FileExistsError:
        return False
    with os.fdopen(handle, "w") as claim:
        claim.write(str(os.getpid()))
    return True


def _hand_back(folder: Optional[str], index: int) -> None:
    """Gives up the claim on entry @p index, which this worker could not grade: another takes it."""
    if folder:
        try:
            os.unlink(os.path.join(folder, str(index)))
        except FileNotFoundError:
            pass


def _claimant_gone(folder: str, index: int) -> bool:
    """Whether the worker that claimed entry @p index has ended (a crash, Ctrl-C)."""
    try:
        with open(os.path.join(folder, str(index)), encoding="ascii") as claim:
            pid = int(claim.read() or "0")
    except (OSError, ValueError):
        return False
    if pid <= 0:
        return False  # just claimed: its id is being written
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def _next_row(folder: Optional[str], queue: List[dict], layout: grading.Layout, taken: set) -> Optional[int]:
    """The next queue entry this worker grades, claimed; None once every entry is final or
    this worker's. Each pass starts from the queue's head, and while another worker still
    holds an entry that is not final this one waits: that worker may hand it back (its GPU
    failed) or have ended without a row, and the entry is then taken here rather than
    left 'not graded yet' (red team 10, F2's gap)."""
    while True:
        others_busy = False
        for index, entry in enumerate(queue):
            if index in taken:
                continue
            if _claim(folder, index):
                taken.add(index)
                if not _final(layout, entry):
                    return index
            elif not _final(layout, entry):
                if _claimant_gone(folder, index):
                    _hand_back(folder, index)
                others_busy = True
        if not others_busy:
            return None
        time.sleep(0.5)


def _earlier_model(out: str) -> str:
    """The GPU model of the run before --gpus or --slurm was used on OUT (one GPU), if any."""
    try:
        with open(os.path.join(out, "run.json"), encoding="utf-8") as handle:
            record = json.load(handle)
    except (OSError, ValueError):
        return ""
    return "" if record.get("gpus") else (record.get("gpu") or {}).get("GPU", "")


def reports_only(args: argparse.Namespace, lab: str, table: points.Table, submissions: List[grading.Submission]) -> int:
    """grade.py --reports-only: every report, from the rows stored in OUT."""
    from . import cli
    from .slurm import LOCK_WAIT_SECONDS
    try:
        lock.hold(args.out, wait_seconds=LOCK_WAIT_SECONDS)  # the grading tasks have ended: OUT is this job's
    except lock.OutInUse as error:
        print(f"grade.py: {error}", file=sys.stderr)
        return cli.EXIT_BAD_INPUT
    layout = grading.Layout(args.out)
    record = json.loads(reports.read_text(os.path.join(args.out, "run.json")))
    gpus.merge_records(layout, record)
    rows = [grading.stored_outcome(layout, s) or dict(s.identity(), status=Status.NOT_GRADED_YET, detail="",
                                                     checks=[]) for s in submissions]
    scored = reports.write_reports(layout, lab, rows, table, record)
    waiting = sum(r.status == Status.NOT_GRADED_YET for r in scored)
    print(f"{lab}: {len(scored)} rows, {sum(r.status == Status.GRADED for r in scored)} graded to the end"
          f"{f', {waiting} not graded yet' if waiting else ''}. Gradebook: {os.path.join(args.out, 'gradebook.csv')}")
    return cli.exit_status([r.status for r in scored])
