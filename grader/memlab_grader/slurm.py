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
with --resume compiles and submits only those.
"""
from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
from typing import Dict, List

from . import grading, workers
from .kit import Kit


class SlurmArray:
    reports_later = True  # the report job writes them, once the tasks have ended

    def __init__(self, args: argparse.Namespace):
        self.args = args
        self.sbatch = shutil.which("sbatch")
        if self.sbatch is None:
            raise ValueError("--slurm: sbatch is not on PATH: run grade.py on a node of the cluster (a login node)")
        self.jobs: List[str] = []

    def describe(self) -> str:
        return "a Slurm job array"

    def _directives(self, name: str, log: str) -> List[str]:
        args = self.args
        lines = [f"#SBATCH --job-name={name}", f"#SBATCH --output={log}"]
        if args.partition:
            lines.append(f"#SBATCH --partition={args.partition}")
        if args.account:
            lines.append(f"#SBATCH --account={args.account}")
        return lines

    def write_scripts(self, lab: str, kit_file: str, shards: int) -> tuple:
        args = self.args
        folder = os.path.join(args.out, "slurm")
        os.makedirs(os.path.join(folder, "logs"), exist_ok=True)
        queue = os.path.join(args.out, ".work", "slurm", "shard-${SLURM_ARRAY_TASK_ID}.json")
        command = workers.worker_command(args, lab, kit_file, "QUEUE")
        # The queue is the task's own shard: the shell expands the task's number in it.
        words = " ".join(shlex.quote(word) if word != "QUEUE" else f'"{queue}"' for word in command)
        grade = "\n".join([
            "#!/bin/bash",
            f"# Grades {lab}'s submissions in OUT={args.out}, one shard per array task, on the task's",
            "# one GPU. Written and submitted by grade.py --slurm (grader/memlab_grader/slurm.py); every",
            "# submission was compiled before, on the submitting node. Each task calibrates the reference on",
            "# its GPU, then grades its shard's rows that are not final yet, each stored as it ends.",
            *self._directives(f"memlab-{lab}-grade", os.path.join(folder, "logs", "grade-%A_%a.log")),
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
            f"# Writes {lab}'s gradebook, feedback and summary in OUT={args.out} from the rows the grading",
            "# tasks stored, once they have all ended (submitted with --dependency=afterany:<array>).",
            "# Rows a failed or cancelled task did not reach read \"not graded yet\": run the same",
            "# `make grade ... SLURM=1` with RESUME=1 to grade only those.",
            *self._directives(f"memlab-{lab}-reports", os.path.join(folder, "logs", "reports-%j.log")),
            "#SBATCH --ntasks=1",
            "#SBATCH --time=00:30:00",
            "set -euo pipefail",
            "exec " + " ".join(shlex.quote(w) for w in report_words),
            ""])
        paths = os.path.join(folder, "grade.sbatch"), os.path.join(folder, "reports.sbatch")
        for path, text in zip(paths, (grade, report)):
            grading.write_text_atomically(path, text)
            os.chmod(path, 0o755)
        return paths

    def _submit(self, *words: str) -> str:
        submitted = subprocess.run([self.sbatch, "--parsable", *words], capture_output=True, text=True, timeout=120)
        if submitted.returncode != 0:
            from .cli import SetupFailed
            raise SetupFailed(f"sbatch {' '.join(words)} failed: {submitted.stderr.strip() or submitted.stdout.strip()}")
        return submitted.stdout.strip().split(";")[0]

    def grade(self, ready: List[dict], kit: Kit, layout: grading.Layout, record: dict, args: argparse.Namespace,
              lab: str) -> Dict[str, dict]:
        shards = [ready[i:i + args.shard_size] for i in range(0, len(ready), args.shard_size)]
        folder = os.path.join(layout.work, "slurm")
        shutil.rmtree(folder, ignore_errors=True)  # an earlier submission's shards
        os.makedirs(folder)
        for number, shard in enumerate(shards):
            workers.write_queue(os.path.join(folder, f"shard-{number}.json"), shard)
        kit_file = workers.write_kit(kit, layout)
        grade_script, report_script = self.write_scripts(lab, kit_file, max(1, len(shards)))
        session = record["sessions"][-1]
        grading.write_json_atomically(os.path.join(args.out, "run.json"), record)  # the tasks' --resume reads it
        if shards:
            array = self._submit(grade_script)
            self.jobs.append(array)
            session["slurm"] = dict(array_job=array, shards=len(shards), shard_size=args.shard_size)
        dependency = [f"--dependency=afterany:{self.jobs[0]}"] if self.jobs else []
        reports_job = self._submit(*dependency, report_script)
        self.jobs.append(reports_job)
        session.setdefault("slurm", {})["reports_job"] = reports_job
        grading.write_json_atomically(os.path.join(args.out, "run.json"), record)
        if shards:
            print(f"Submitted job array {self.jobs[0]}: {len(ready)} submissions in {len(shards)} tasks of at most "
                  f"{args.shard_size}, --gres={args.gres} each; then job {reports_job} writes the reports.\n"
                  f"Batch scripts and logs: {os.path.join(args.out, 'slurm')}. Follow with: squeue -j "
                  f"{self.jobs[0]},{reports_job}", flush=True)
        else:
            print(f"Nothing to grade on a GPU; job {reports_job} writes the reports.", flush=True)
        return {}
