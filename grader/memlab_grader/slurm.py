"""grade.py --slurm: grading a class on a Slurm cluster. Slurm schedules; this
module only writes two batch scripts and submits them:

  OUT/slurm/grade.sbatch     a job array, one task per shard of the compiled
                             submissions, each with one GPU (--gres=gpu:1): the
                             task is a grading worker (workers.py) on that GPU
  OUT/slurm/reports.sbatch   after every task has ended, however it ended
                             (--dependency=afterany): grade.py --reports-only

Everything was compiled before, here, on the submitting node; OUT must be on a
file system the compute nodes share. A task that fails, is cancelled or is
requeued leaves its rows that had not ended "not graded yet"; the same command
with --resume, once every job of the run has ended, compiles and submits only
those. OUT is one run's at a time (lock.py): run.json names the jobs submitted,
and a --resume is refused while squeue lists any of them; the tasks hold OUT's
lock shared, the report job alone.
"""
from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import subprocess
from typing import Dict, List

from . import grading, workers
from .kit import Kit


# What goes into a directive of a batch script: Slurm's names and times, never a path
# (a path goes on sbatch's command line, where no character of it means anything).
_DIRECTIVE_VALUE = re.compile(r"[A-Za-z0-9_.:,=+@/-]+")
# How long a task waits for OUT's lock, held a moment by the grade.py that submitted it.
LOCK_WAIT_SECONDS = 120.0


class SubmitFailed(Exception):
    """sbatch refused a script: OUT and its compiles are kept, to submit again with --resume."""


class SlurmArray:
    reports_later = True  # the report job writes them, once the tasks have ended

    def __init__(self, args: argparse.Namespace):
        self.args = args
        self.sbatch = shutil.which("sbatch")
        if self.sbatch is None:
            raise ValueError("--slurm: sbatch is not on PATH: run grade.py on a node of the cluster (a login node)")
        for name in ("partition", "account", "time_limit", "gres"):
            value = getattr(args, name)
            if value is not None and not _DIRECTIVE_VALUE.fullmatch(value):
                raise ValueError(f"--{name.replace('_', '-')} {value!r}: not a Slurm value (letters, digits, "
                                 f"and _ . : , = + @ / - only)")
        for word in workers.worker_command(args, "lab", "kit", "queue"):
            if "\n" in word or "\r" in word:
                raise ValueError(f"--slurm: the path {word!r} holds a line break, which a batch script cannot "
                                 "carry safely: use a folder without one")
        self.jobs: List[str] = []

    def describe(self) -> str:
        return "a Slurm job array"

    def _directives(self, name: str) -> List[str]:
        args = self.args
        lines = [f"#SBATCH --job-name={name}"]
        if args.partition:
            lines.append(f"#SBATCH --partition={args.partition}")
        if args.account:
            lines.append(f"#SBATCH --account={args.account}")
        return lines

    def sbatch_words(self, script: str, log: str, *more: str) -> List[str]:
        """sbatch's command line for @p script: the paths (its folder, its log) given here,
        not as directives, where a space ends one and a '%' or a '\\' is read as a pattern;
        the log is named relative to the folder (--chdir), so that only Slurm's %A_%a are."""
        return ["--parsable", f"--chdir={os.path.join(self.args.out, 'slurm', 'logs')}", f"--output={log}",
                *more, script]

    def write_scripts(self, lab: str, kit_file: str, shards: int) -> tuple:
        """The two batch scripts. Every path in them is quoted for the shell (shlex.quote),
        the task's number outside the quotes: OUT may hold spaces, quotes, '$' or '`'."""
        args = self.args
        folder = os.path.join(args.out, "slurm")
        os.makedirs(os.path.join(folder, "logs"), exist_ok=True)
        paths = os.path.join(folder, "grade.sbatch"), os.path.join(folder, "reports.sbatch")
        # The queue is the task's own shard: the shell puts the task's number in it.
        queue = (shlex.quote(os.path.join(args.out, ".work", "slurm", "shard-")) + '"${SLURM_ARRAY_TASK_ID}"' +
                 shlex.quote(".json"))
        command = workers.worker_command(args, lab, kit_file, "QUEUE")
        words = " ".join(shlex.quote(word) if word != "QUEUE" else queue for word in command)
        submitted_as = lambda script, log: " ".join(  # noqa: E731
            shlex.quote(word) for word in ["sbatch", *self.sbatch_words(script, log)])
        grade = "\n".join([
            "#!/bin/bash",
            f"# Grades {lab}'s submissions in OUT={shlex.quote(args.out)}, one shard per array task, on the",
            "# task's one GPU. Written and submitted by grade.py --slurm (grader/memlab_grader/slurm.py); every",
            "# submission was compiled before, on the submitting node. Each task calibrates the reference on",
            "# its GPU, then grades its shard's rows that are not final yet, each stored as it ends.",
            f"# Submitted as: {submitted_as(paths[0], 'grade-%A_%a.log')}",
            *self._directives(f"memlab-{lab}-grade"),
            f"#SBATCH --array=0-{shards - 1}",
            f"#SBATCH --gres={args.gres}",
            "#SBATCH --ntasks=1",
            "#SBATCH --cpus-per-task=2",
            f"#SBATCH --time={args.time_limit}",
            "#SBATCH --requeue",
            "set -euo pipefail",
            f"exec {words}",
            ""])
        report_words = [w for w in workers.worker_command(args, lab, kit_file, "-")
                        if w not in ("--worker-queue", "-")] + ["--reports-only"]
        report = "\n".join([
            "#!/bin/bash",
            f"# Writes {lab}'s gradebook, feedback and summary in OUT={shlex.quote(args.out)} from the rows",
            "# the grading tasks stored, once they have all ended (submitted with --dependency=afterany:<array>).",
            "# Rows a failed or cancelled task did not reach read \"not graded yet\": run the same",
            "# `make grade ... SLURM=1` with RESUME=1, once every job of this run has ended, to grade only those.",
            f"# Submitted as: {submitted_as(paths[1], 'reports-%j.log')}",
            *self._directives(f"memlab-{lab}-reports"),
            "#SBATCH --ntasks=1",
            "#SBATCH --time=00:30:00",
            "set -euo pipefail",
            "exec " + " ".join(shlex.quote(w) for w in report_words),
            ""])
        for path, text in zip(paths, (grade, report)):
            grading.write_text_atomically(path, text)
            os.chmod(path, 0o755)
        return paths

    def _submit(self, words: List[str]) -> str:
        try:
            submitted = subprocess.run([self.sbatch, *words], capture_output=True, text=True, timeout=120)
        except (OSError, subprocess.TimeoutExpired) as error:
            raise SubmitFailed(f"sbatch failed: {error}") from None
        if submitted.returncode != 0:
            raise SubmitFailed(f"sbatch refused {os.path.basename(words[-1])}: "
                               f"{submitted.stderr.strip() or submitted.stdout.strip()}")
        return submitted.stdout.strip().split(";")[0]

    def grade(self, ready: List[dict], kit: Kit, layout: grading.Layout, record: dict, args: argparse.Namespace,
              lab: str) -> Dict[str, dict]:
        shards = [ready[i:i + args.shard_size] for i in range(0, len(ready), args.shard_size)]
        folder = os.path.join(layout.work, "slurm")
        shutil.rmtree(folder, ignore_errors=True)  # an earlier submission's shards (its jobs have ended: cli)
        os.makedirs(folder)
        for number, shard in enumerate(shards):
            workers.write_queue(os.path.join(folder, f"shard-{number}.json"), shard)
        kit_file = workers.write_kit(kit, layout)
        grade_script, report_script = self.write_scripts(lab, kit_file, max(1, len(shards)))
        session = record["sessions"][-1]
        slurm = session.setdefault("slurm", {})
        record_path = os.path.join(args.out, "run.json")
        grading.write_json_atomically(record_path, record)  # the tasks' --resume reads it
        # Each job is in run.json as soon as it is submitted: a --resume refuses while it is queued.
        if shards:
            try:
                array = self._submit(self.sbatch_words(grade_script, "grade-%A_%a.log"))
            except SubmitFailed as error:
                raise SubmitFailed(f"{error}\nNothing was submitted. OUT keeps the compiles and the batch scripts "
                                   f"({os.path.join(args.out, 'slurm')}); once sbatch accepts them, run the same "
                                   "command with --resume (RESUME=1) to submit the rows not final.") from None
            self.jobs.append(array)
            slurm.update(array_job=array, shards=len(shards), shard_size=args.shard_size)
            grading.write_json_atomically(record_path, record)
        dependency = [f"--dependency=afterany:{self.jobs[0]}"] if self.jobs else []
        report_words = self.sbatch_words(report_script, "reports-%j.log", *dependency)
        try:
            reports_job = self._submit(report_words)
        except SubmitFailed as error:
            by_hand = " ".join(shlex.quote(word) for word in ["sbatch", *report_words])
            raise SubmitFailed(f"{error}\n" + (f"Job array {self.jobs[0]} was submitted and grades the rows; the "
                                               f"report job was not. Submit it by hand: {by_hand}" if self.jobs else
                                               f"Submit the report job by hand: {by_hand}")) from None
        self.jobs.append(reports_job)
        slurm["reports_job"] = reports_job
        grading.write_json_atomically(record_path, record)
        if shards:
            print(f"Submitted job array {self.jobs[0]}: {len(ready)} submissions in {len(shards)} tasks of at most "
                  f"{args.shard_size}, --gres={args.gres} each; then job {reports_job} writes the reports.\n"
                  f"Batch scripts and logs: {os.path.join(args.out, 'slurm')}. Follow with: squeue -j "
                  f"{self.jobs[0]},{reports_job}", flush=True)
        else:
            print(f"Nothing to grade on a GPU; job {reports_job} writes the reports.", flush=True)
        return {}


def recorded_jobs(record: dict) -> List[str]:
    """Every Slurm job run.json's @p record says a grade.py --slurm on this OUT submitted."""
    jobs = []
    for session in record.get("sessions", []):
        for key in ("array_job", "reports_job"):
            job = str((session.get("slurm") or {}).get(key) or "")
            if job and job not in jobs:
                jobs.append(job)
    return jobs


def jobs_not_ended(jobs: List[str]) -> List[str]:
    """Those of @p jobs (job ids, an array's base id) that squeue still lists: queued,
    running, or ending. Raises RuntimeError where squeue cannot say."""
    if not jobs:
        return []
    squeue = shutil.which("squeue")
    if squeue is None:
        raise RuntimeError("squeue is not on PATH")
    try:
        # Every job squeue lists (its default states: pending, running, completing, ...);
        # jobs that ended, or that slurmctld forgot, are not listed.
        listed = subprocess.run([squeue, "--noheader", "--format=%F %A"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise RuntimeError(f"squeue failed: {error}") from None
    if listed.returncode != 0:
        raise RuntimeError(f"squeue failed: {listed.stderr.strip() or listed.stdout.strip()}")
    alive = {word for line in listed.stdout.splitlines() for word in line.split()}
    return [job for job in jobs if job in alive]
