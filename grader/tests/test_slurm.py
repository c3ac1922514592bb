#!/usr/bin/env python3
"""grade.py --slurm against a real Slurm (slurmctld, slurmd and munge of Debian's
slurm-wlm), started on this machine as a one-node cluster by
scripts/slurm-local-cluster.sh, with stand-ins for nvcc and the lab grader:

- without a GPU, the array tasks take no row (they read "not graded yet") and
  the report job, started after them, writes the gradebook;
- a task cancelled mid-run (scancel) leaves its rows "not graded yet", and the
  same command with --resume grades only those: every row once, none lost;
- a --resume while the run's jobs are queued or running is refused;
- an OUT whose path holds a space, quotes, '$(...)' or '%' is only a path to
  sbatch and the shell; a script sbatch refuses leaves OUT and its compiles.

Exits 77 (skipped) where Slurm is not installed or its daemons cannot start here,
and says why. Run it as `python3 test_slurm.py` (CTest: grader.slurm).
"""
import csv
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

from helpers import SOURCE_DIR, GraderTestCase

CLUSTER_SCRIPT = os.path.join(SOURCE_DIR, "scripts", "slurm-local-cluster.sh")
SKIP = 77
cluster = {}


def wait_for_jobs(jobs, limit=180):
    """Until none of @p jobs is pending or running."""
    deadline = time.time() + limit
    while True:
        listed = subprocess.run(["squeue", "-h", "-j", ",".join(jobs), "-o", "%i %T"], capture_output=True, text=True)
        if listed.returncode == 0 and not listed.stdout.strip():
            return
        if time.time() > deadline:
            raise AssertionError(f"Slurm jobs {jobs} still queued after {limit} s:\n{listed.stdout}")
        time.sleep(0.5)


class GradesOnSlurm(GraderTestCase):
    def setUp(self):
        super().setUp()
        self.env = dict(SLURM_CONF=cluster["conf"])

    def slurm_jobs(self):
        with open(os.path.join(self.out, "run.json"), encoding="utf-8") as handle:
            session = json.load(handle)["sessions"][-1]["slurm"]
        return [job for job in (session.get("array_job"), session.get("reports_job")) if job]

    def grade_on_slurm(self, *extra, env=None):
        finished = self.grade("--slurm", "--time-limit", "00:10:00", *extra, env=dict(self.env, **(env or {})))
        self.assertEqual(finished.returncode, 0, finished.stdout + finished.stderr)
        self.assertIn("Submitted job array", finished.stdout)
        jobs = self.slurm_jobs()
        wait_for_jobs(jobs)
        return jobs

    def logs(self):
        text = ""
        for name in sorted(os.listdir(os.path.join(self.out, "slurm", "logs"))):
            with open(os.path.join(self.out, "slurm", "logs", name), encoding="utf-8", errors="replace") as handle:
                text += f"--- {name}\n{handle.read()}"
        return text

    def test_without_a_gpu_the_tasks_take_no_row_and_the_report_job_writes_the_gradebook(self):
        for n in range(5):
            self.submit(f"s{n}", "fine")
        self.submit("broken", "FAKE_COMPILE_ERROR")
        self.grade_on_slurm("--shard-size", "2", env=dict(FAKE_NO_GPU="1"))
        self.assertTrue(os.path.isfile(os.path.join(self.out, "gradebook.csv")), self.logs())
        book = self.gradebook()
        self.assertEqual(book["broken"]["status"], "compile error")  # compiled once, on the submitting node
        self.assertEqual({book[f"s{n}"]["status"] for n in range(5)}, {"not graded yet"}, self.logs())
        self.assertIn("graded nothing: no usable GPU", self.read_out("summary.md"))
        with open(os.path.join(self.out, "slurm", "grade.sbatch"), encoding="utf-8") as handle:
            script = handle.read()
        self.assertIn("#SBATCH --gres=gpu:1", script)
        self.assertIn("#SBATCH --array=0-2", script)  # 5 to grade, 2 a task
        self.assertTrue(os.path.isfile(os.path.join(self.out, "slurm", "reports.sbatch")))

    def test_a_cancelled_task_leaves_its_rows_to_a_rerun_that_grades_only_those(self):
        students = [f"s{n}" for n in range(6)]
        for student in students:
            self.submit(student, "FAKE_SLOW=1.5")
        finished = self.grade("--slurm", "--shard-size", "3", env=self.env)
        self.assertEqual(finished.returncode, 0, finished.stdout + finished.stderr)
        array, reports_job = self.slurm_jobs()
        with open(os.path.join(self.out, ".work", "slurm", "shard-0.json"), encoding="utf-8") as handle:
            first_shard = [entry["student"] for entry in json.load(handle)]
        deadline = time.time() + 120
        while not any(os.path.isfile(os.path.join(self.out, "students", s, "outcome.json")) for s in first_shard):
            self.assertLess(time.time(), deadline, "task 0 graded nothing:\n" + self.logs())
            time.sleep(0.2)
        subprocess.run(["scancel", f"{array}_0"], check=True, env=dict(os.environ, **self.env))
        wait_for_jobs([array, reports_job])
        book = self.gradebook()
        graded = {s for s in students if book[s]["status"] == "graded"}
        self.assertTrue(set(students) - set(first_shard) <= graded, book)  # the other task finished
        left = set(students) - graded
        self.assertTrue(left and left <= set(first_shard), book)
        self.assertEqual({book[s]["status"] for s in left}, {"not graded yet"})
        before = {s: self.outcome(s)["gpu"]["slurm_job"] for s in graded}

        log = os.path.join(self.root, "runs.log")
        self.grade_on_slurm("--resume", "--shard-size", "3", env=dict(FAKE_NOT_SLOW="1", FAKE_RUN_LOG=log))
        with open(log, encoding="utf-8") as handle:
            ran = self.students_staged(line.strip() for line in handle)  # not "kit": the calibration
        self.assertEqual(sorted(ran), sorted(left))  # only the rows left, each once
        with open(os.path.join(self.out, "gradebook.csv"), encoding="utf-8") as handle:
            rows = [row["student"] for row in csv.DictReader(handle)]
        self.assertEqual(sorted(rows), students)  # no row lost or doubled
        book = self.gradebook()
        self.assertTrue(all(book[s]["status"] == "graded" for s in students), book)
        self.assertEqual({s: self.outcome(s)["gpu"]["slurm_job"] for s in graded}, before)  # not graded again

    def test_a_resume_while_the_jobs_are_queued_or_running_is_refused(self):
        for n in range(2):
            self.submit(f"s{n}", "FAKE_SLOW=4")
        finished = self.grade("--slurm", "--shard-size", "1", env=self.env)
        self.assertEqual(finished.returncode, 0, finished.stdout + finished.stderr)
        jobs = self.slurm_jobs()
        log = os.path.join(self.root, "runs.log")
        for local_or_slurm in (("--slurm",), ()):
            again = self.grade("--resume", "--shard-size", "1", *local_or_slurm, env=dict(self.env, FAKE_RUN_LOG=log))
            self.assertEqual(again.returncode, 2, again.stdout + again.stderr)
            self.assertIn("are still queued or running", again.stderr)
        wait_for_jobs(jobs)
        self.assertFalse(os.path.exists(log), "the refused resume graded rows")
        self.assertEqual({r["status"] for r in self.gradebook().values()}, {"graded"}, self.logs())
        finished = self.grade("--slurm", "--resume", env=self.env)  # once they have ended: nothing left to grade
        self.assertEqual(finished.returncode, 0, finished.stdout + finished.stderr)
        wait_for_jobs(self.slurm_jobs())

    def test_out_is_only_a_path_to_sbatch_and_the_shell(self):
        self.out = os.path.join(self.root, f"lab1 grades $(touch {self.root}/PWNED) 'q' \"q\" 100%d")
        for n in range(3):
            self.submit(f"s{n}", "fine")
        self.grade_on_slurm("--shard-size", "2")
        self.assertEqual({r["status"] for r in self.gradebook().values()}, {"graded"}, self.logs())
        logs = sorted(os.listdir(os.path.join(self.out, "slurm", "logs")))
        self.assertEqual([name.split("-")[0] for name in logs], ["grade", "grade", "reports"], logs)
        self.assertFalse(os.path.exists(os.path.join(self.root, "PWNED")))

    def test_a_script_sbatch_refuses_leaves_out_to_submit_again(self):
        self.submit("s0", "fine")
        self.submit("broken", "FAKE_COMPILE_ERROR")
        finished = self.grade("--slurm", "--partition", "no_such_partition", env=self.env)
        self.assertEqual(finished.returncode, 3, finished.stdout + finished.stderr)
        self.assertIn("sbatch refused grade.sbatch", finished.stderr)
        self.assertEqual(self.outcome("broken")["status"], "compile error")
        self.grade_on_slurm("--resume")
        self.assertEqual(self.gradebook()["s0"]["status"], "graded", self.logs())


def start_cluster(folder):
    """Starts the one-node cluster; returns why it cannot, or None."""
    missing = [p for p in ("munged", "slurmctld", "slurmd", "sbatch")
               if not shutil.which(p) and not os.path.exists(f"/usr/sbin/{p}")]
    if missing:
        return f"Slurm is not installed here (missing {', '.join(missing)}: apt-get install slurm-wlm munge)"
    env = dict(os.environ, SLURM_LOCAL_PORT=str(random.randrange(20000, 40000, 2)), GPUS="2")
    started = subprocess.run([CLUSTER_SCRIPT, "start", folder], capture_output=True, text=True, env=env, timeout=120)
    if started.returncode != 0:
        return f"the Slurm daemons did not start here:\n{started.stdout}{started.stderr}"
    cluster["conf"] = os.path.join(folder, "slurm.conf")
    return None


def main():
    folder = tempfile.mkdtemp(prefix="memlab-slurm-")
    try:
        why = start_cluster(folder)
        if why:
            print(f"SKIPPED: {why}")
            return SKIP
        os.environ["SLURM_CONF"] = cluster["conf"]
        result = unittest.main(module=__name__, argv=[sys.argv[0], "-v"] + sys.argv[1:], exit=False).result
        return 0 if result.wasSuccessful() else 1
    finally:
        subprocess.run([CLUSTER_SCRIPT, "stop", folder], capture_output=True, timeout=60)
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
