"""Grading on every GPU of a server (grade.py --gpus), on stand-ins: a fake
nvidia-smi lists the GPUs, the stand-in lab grader logs which GPU each run saw
and when. Each GPU grades alone, is calibrated on its own, and is named in each
row it graded; GPUs of two models are refused unless asked for; an interrupted
run with two workers resumes without a row graded twice or lost; a GPU that
fails, before or after its calibration, takes no rows from the GPUs that work."""
import glob
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest
from unittest import mock

from helpers import GRADER, STANDINS, GraderTestCase
from memlab_grader import gpus
from memlab_grader.sandbox import gpu_devices


class FakeGpus(GraderTestCase):
    """A fake nvidia-smi on PATH listing two GPUs of one model."""

    def setUp(self):
        super().setUp()
        self.bin = os.path.join(self.root, "bin")
        os.makedirs(self.bin)
        os.symlink(os.path.join(STANDINS, "fake_nvidia_smi.py"), os.path.join(self.bin, "nvidia-smi"))
        self.env = dict(PATH=self.bin + os.pathsep + os.environ["PATH"], FAKE_GPUS="Fake H200;Fake H200")


class GradesOnEveryGpu(FakeGpus):
    def test_each_gpu_grades_alone_and_each_row_names_its_gpu(self):
        students = [f"s{n}" for n in range(8)]
        for student in students:
            self.submit(student, "FAKE_SLOW=0.4")
        log = os.path.join(self.root, "gpus.log")
        finished = self.grade("--gpus", "all", env=dict(self.env, FAKE_GPU_LOG=log))
        self.assertEqual(finished.returncode, 0, finished.stdout + finished.stderr)
        self.assertEqual({s: r["total"] for s, r in self.gradebook().items()}, {s: "100" for s in students})
        used = {self.outcome(s)["gpu"]["uuid"] for s in students}
        self.assertEqual(used, {"GPU-fake-0", "GPU-fake-1"})  # the queue is shared: both took some
        self.assertEqual(self.outcome("s0")["gpu"]["name"], "Fake H200")
        with open(log) as handle:
            runs = [json.loads(line) for line in handle]
        for gpu in ("GPU-fake-0", "GPU-fake-1"):
            spans = sorted((r["start"], r["end"]) for r in runs if r["gpu"] == gpu)
            self.assertTrue(all(a_end <= b_start for (_, a_end), (b_start, _) in zip(spans, spans[1:])),
                            f"two runs at once on {gpu}: {spans}")
            self.assertTrue(any(r["student"] == "kit" for r in runs if r["gpu"] == gpu),  # the reference
                            f"{gpu} was not calibrated")
        self.assertEqual(sorted(self.students_staged(r["student"] for r in runs)), students)
        record = json.loads(self.read_out("run.json"))
        self.assertEqual(len(record["gpus"]), 2)
        for data in record["gpus"].values():
            self.assertIn("seconds", data["reference_run"])
            self.assertTrue(data["uuid"].startswith("GPU-fake-"))
        self.assertEqual(record["gpu"]["GPU"], "Fake GPU")
        summary = self.read_out("summary.md")
        self.assertIn("## Which GPU graded which row", summary)
        self.assertIn("GPU-fake-1", summary)

    def test_a_list_of_gpus(self):
        self.submit("one", "fine")
        finished = self.grade("--gpus", "1", env=dict(self.env, FAKE_GPUS="Fake H200;Fake H200;Fake H200"))
        self.assertEqual(finished.returncode, 0, finished.stderr)
        self.assertEqual(self.outcome("one")["gpu"]["uuid"], "GPU-fake-1")
        self.out = os.path.join(self.root, "out2")
        finished = self.grade("--gpus", "0,5", env=self.env)
        self.assertEqual(finished.returncode, 2)
        self.assertIn("there is no GPU 5 here", finished.stderr)

    def test_gpus_of_two_models_are_refused_unless_asked_for(self):
        self.submit("one", "fine")
        self.submit("two", "fine")
        mixed = dict(self.env, FAKE_GPUS="Fake H200;Fake H100")
        finished = self.grade("--gpus", "all", env=mixed)
        self.assertEqual(finished.returncode, 2)
        self.assertIn("different models (Fake H100, Fake H200)", finished.stderr)
        self.assertFalse(os.path.exists(self.out))
        finished = self.grade("--gpus", "all", "--mixed-gpus", env=mixed)
        self.assertEqual(finished.returncode, 0, finished.stderr)
        self.assertIn("WARNING: they are of different models", self.read_out("summary.md"))

    def test_a_resume_on_another_model_is_refused(self):
        self.submit("one", "fine")
        self.submit("two", "FAKE_COMPILE_ERROR")
        finished = self.grade("--gpus", "all", env=dict(self.env, FAKE_NO_GPU="1"))
        self.assertEqual(finished.returncode, 1, finished.stderr)  # no GPU worked: no row taken
        self.assertEqual(self.gradebook()["one"]["status"], "not graded yet")
        finished = self.grade("--gpus", "all", "--resume", env=self.env)
        self.assertEqual(finished.returncode, 0, finished.stderr)
        finished = self.grade("--gpus", "0", "--resume", env=dict(self.env, FAKE_GPUS="Fake H100"))
        self.assertEqual(finished.returncode, 0, finished.stderr)  # nothing left to grade: nothing refused
        # A row left to grade, on another model: refused.
        os.remove(os.path.join(self.out, "students", "one", "outcome.json"))
        finished = self.grade("--gpus", "0", "--resume", env=dict(self.env, FAKE_GPUS="Fake H100"))
        self.assertEqual(finished.returncode, 3, finished.stdout + finished.stderr)
        self.assertIn("graded on a Fake H200", finished.stderr)

    def test_an_interrupted_run_with_two_workers_resumes_without_a_row_twice_or_lost(self):
        students = [f"s{n:02d}" for n in range(10)]
        for student in students:
            self.submit(student, "FAKE_SLOW=1")
        process = subprocess.Popen(self.grade_command("--gpus", "all"), stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True, env=dict(os.environ, **self.env),
                                   start_new_session=True)
        deadline = time.time() + 60
        while len(glob.glob(os.path.join(self.out, "students", "*", "outcome.json"))) < 3:
            self.assertLess(time.time(), deadline, "nothing was graded")
            time.sleep(0.1)
        os.killpg(process.pid, signal.SIGINT)  # Ctrl-C at the terminal: to grade.py and its workers
        out, errors = process.communicate(timeout=60)
        self.assertEqual(process.returncode, 130, out + errors)
        book = self.gradebook()
        done = {s for s, row in book.items() if row["status"] == "graded"}
        self.assertGreaterEqual(len(done), 3)
        self.assertTrue(all(book[s]["status"] == "not graded yet" for s in set(students) - done), book)
        self.assertLess(len(done), len(students))
        log = os.path.join(self.root, "runs.log")
        finished = self.grade("--gpus", "all", "--resume", env=dict(self.env, FAKE_NOT_SLOW="1", FAKE_RUN_LOG=log))
        self.assertEqual(finished.returncode, 0, finished.stdout + finished.stderr)
        with open(log) as handle:
            ran = self.students_staged(line.strip() for line in handle)  # not "kit": each GPU's calibration
        self.assertEqual(sorted(ran), sorted(set(students) - done))  # each of the rest once, none of the done
        book = self.gradebook()
        self.assertEqual(sorted(book), students)
        self.assertTrue(all(row["status"] == "graded" for row in book.values()))


# GPU 1 is bad (red team 10, F2): BAD_GPU=after-calibration fails each student's run as a GPU
# fallen off the bus does (exit 3) once its reference passed; BAD_GPU=no-gpu finds no GPU (77).
BAD_GPU_GRADER = """#!/bin/sh
if [ "$CUDA_VISIBLE_DEVICES" = "GPU-fake-1" ]; then
  case "$BAD_GPU" in
    no-gpu) echo "no GPU here"; exit 77 ;;
    after-calibration) case "$*" in
      *"_reference_as_student.so --reference"*) ;;  # the calibration (Kit.reference_as_student)
      *) echo "lab1 grader: the GPU failed before any check ran: Xid 79"; exit 3 ;;
    esac ;;
  esac
fi
exec {fake} "$@"
"""


class OneBadGpu(FakeGpus):
    """Two GPUs, one of them bad: the good one grades the class, and no row is final
    that no working GPU graded."""

    def setUp(self):
        super().setUp()
        wrapper = self.write(os.path.join(self.root, "kit", "bad_gpu_grader.sh"),
                             BAD_GPU_GRADER.format(fake=os.path.join(STANDINS, "fake_lab_grader.py")))
        os.chmod(wrapper, 0o755)
        with open(self.kit, encoding="utf-8") as handle:
            kit = json.load(handle)
        kit["grader"] = wrapper
        self.write(self.kit, json.dumps(kit))
        self.students = [f"s{n}" for n in range(8)]
        for student in self.students:
            self.submit(student, "FAKE_SLOW=0.3")

    def test_a_gpu_failing_after_its_calibration_leaves_every_row_to_the_good_gpu(self):
        finished = self.grade("--gpus", "all", env=dict(self.env, BAD_GPU="after-calibration"))
        self.assertEqual(finished.returncode, 0, finished.stdout + finished.stderr)
        book = self.gradebook()
        self.assertEqual({s: r["status"] for s, r in book.items()}, {s: "graded" for s in self.students})
        self.assertEqual({self.outcome(s)["gpu"]["uuid"] for s in self.students}, {"GPU-fake-0"})
        self.assertIn("GPU 1 stopped grading: the GPU failed before the checks", finished.stderr)
        self.assertIn("GPU 1 stopped grading: the GPU failed before the checks: lab1 grader: the GPU failed before "
                      "any check ran: Xid 79 (at ", self.read_out("summary.md"))

    def test_a_gpu_with_no_gpu_takes_no_row(self):
        finished = self.grade("--gpus", "all", env=dict(self.env, BAD_GPU="no-gpu"))
        self.assertEqual(finished.returncode, 0, finished.stdout + finished.stderr)
        self.assertEqual({s: r["status"] for s, r in self.gradebook().items()}, {s: "graded" for s in self.students})
        self.assertIn("GPU 1 graded nothing: no usable GPU", self.read_out("summary.md"))

    def test_when_no_gpu_works_no_row_is_final_and_the_exit_says_so(self):
        finished = self.grade("--gpus", "1", env=dict(self.env, BAD_GPU="after-calibration"))
        self.assertEqual(finished.returncode, 1, finished.stdout + finished.stderr)
        self.assertEqual({r["status"] for r in self.gradebook().values()}, {"not graded yet"})
        self.assertIn("8 rows are not final (not graded yet)", finished.stderr)
        self.assertIn("GPU 1 stopped grading", finished.stderr)


class EachWorkerSeesItsOneGpu(unittest.TestCase):
    """Red team 10, F4: Slurm names a task's GPU by index; the worker turns it into the GPU's
    UUID before anything starts, so its sandbox binds that GPU's device node alone."""

    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        bin_dir = os.path.join(self.folder.name, "bin")
        os.makedirs(bin_dir)
        os.symlink(os.path.join(STANDINS, "fake_nvidia_smi.py"), os.path.join(bin_dir, "nvidia-smi"))
        patch = mock.patch.dict(os.environ, PATH=bin_dir + os.pathsep + os.environ["PATH"],
                                FAKE_GPUS="Fake H200;Fake H200;Fake H200")
        patch.start()
        self.addCleanup(patch.stop)
        self.addCleanup(self.folder.cleanup)

    def resolved(self, visible):
        environ = {} if visible is None else dict(CUDA_VISIBLE_DEVICES=visible)
        gpu = gpus.visible_gpu(environ)
        gpus.pin(gpu, environ)
        return environ

    def test_an_index_a_uuid_or_a_list_becomes_one_uuid(self):
        for given, uuid in (("1", "GPU-fake-1"), ("GPU-fake-2", "GPU-fake-2"), ("2,0", "GPU-fake-2")):
            self.assertEqual(self.resolved(given), dict(CUDA_VISIBLE_DEVICES=uuid, CUDA_DEVICE_ORDER="PCI_BUS_ID"),
                             given)

    def test_no_gpu_named_on_a_machine_of_several_is_refused(self):
        for given in (None, "", "7", "GPU-other", "NoDevFiles"):
            with self.assertRaisesRegex(ValueError, "cannot tell which one this worker grades on"):
                self.resolved(given)

    def test_the_one_gpu_of_a_constrained_slurm_job_whatever_its_index(self):
        os.environ["FAKE_GPUS"] = "Fake H200"
        self.assertEqual(self.resolved("0")["CUDA_VISIBLE_DEVICES"], "GPU-fake-0")
        self.assertEqual(self.resolved(None)["CUDA_VISIBLE_DEVICES"], "GPU-fake-0")
        with self.assertRaises(ValueError):
            self.resolved("GPU-other")

    def test_the_sandbox_of_a_slurm_task_binds_its_own_gpu_alone(self):
        dev, driver = os.path.join(self.folder.name, "dev"), os.path.join(self.folder.name, "driver")
        os.makedirs(dev)
        for node in ("nvidia0", "nvidia1", "nvidia2", "nvidiactl", "nvidia-uvm"):
            open(os.path.join(dev, node), "w").close()
        for minor in range(3):
            os.makedirs(os.path.join(driver, "gpus", f"0000:{minor}a:00.0"))
            with open(os.path.join(driver, "gpus", f"0000:{minor}a:00.0", "information"), "w") as info:
                info.write(f"Model: \t\t NVIDIA H200\nGPU UUID: \t\t GPU-fake-{minor}\nDevice Minor: \t\t {minor}\n")
        seen = gpu_devices(self.resolved("1")["CUDA_VISIBLE_DEVICES"], dev=dev, driver=driver)
        self.assertEqual(sorted(os.path.basename(node) for node in seen), ["nvidia-uvm", "nvidia1", "nvidiactl"])


class SlurmScripts(FakeGpus):
    """grade.py --slurm's batch scripts, run by hand as Slurm would run them (stand-ins for
    sbatch and squeue; test_slurm.py runs them on a real Slurm): red team 10's F4, F6, F7."""

    def setUp(self):
        super().setUp()
        for name in ("sbatch", "squeue"):
            os.symlink(os.path.join(STANDINS, f"fake_{name}.sh"), os.path.join(self.bin, name))
        self.sbatch_log = os.path.join(self.root, "sbatch.log")
        self.env.update(FAKE_SBATCH_LOG=self.sbatch_log)
        self.submit("s0", "fine")
        self.submit("s1", "fine")
        self.submit("broken", "FAKE_COMPILE_ERROR")

    def submitted(self):
        with open(self.sbatch_log, encoding="utf-8") as handle:
            return [json.loads(line) for line in handle]

    def run_script(self, name, **env):
        script = os.path.join(self.out, "slurm", name)
        return subprocess.run(["bash", script], capture_output=True, text=True, timeout=120, cwd=self.root,
                              env=dict(os.environ, **self.env, **env))

    def test_a_task_grades_on_its_own_gpu_and_out_is_only_a_path_to_the_shell(self):
        self.out = os.path.join(self.root, f"lab1 grades $(touch {self.root}/PWNED1) `touch {self.root}/PWNED2` "
                                           "\"q\" 'q' 100%d \\x $HOME")
        finished = self.grade("--slurm", env=self.env)
        self.assertEqual(finished.returncode, 0, finished.stdout + finished.stderr)
        array, reports_job = self.submitted()
        logs = os.path.join(self.out, "slurm", "logs")
        # Paths go on sbatch's command line, where no character of them is read as a pattern.
        self.assertEqual(array, ["--parsable", f"--chdir={logs}", "--output=grade-%A_%a.log",
                                 os.path.join(self.out, "slurm", "grade.sbatch")])
        self.assertEqual(reports_job[:3], ["--parsable", f"--chdir={logs}", "--output=reports-%j.log"])
        self.assertIn("--dependency=afterany:1001", reports_job)
        self.assertNotIn("#SBATCH --output", self.read_out("slurm/grade.sbatch"))
        gpu_log = os.path.join(self.root, "gpus.log")
        # Slurm names the task's GPU by index; the task grades on GPU 1 alone, by its UUID.
        task = self.run_script("grade.sbatch", SLURM_ARRAY_TASK_ID="0", SLURM_JOB_ID="1002",
                               SLURM_ARRAY_JOB_ID="1001", CUDA_VISIBLE_DEVICES="1", FAKE_GPU_LOG=gpu_log)
        self.assertEqual(task.returncode, 0, task.stdout + task.stderr)
        with open(gpu_log, encoding="utf-8") as handle:
            self.assertEqual({json.loads(line)["gpu"] for line in handle}, {"GPU-fake-1"})
        self.assertEqual(self.outcome("s0")["gpu"]["uuid"], "GPU-fake-1")
        self.assertEqual(self.outcome("s1")["gpu"]["slurm_job"], "1001_0")
        report = self.run_script("reports.sbatch")
        self.assertEqual(report.returncode, 0, report.stdout + report.stderr)
        self.assertEqual({s: r["status"] for s, r in self.gradebook().items()},
                         {"s0": "graded", "s1": "graded", "broken": "compile error"})
        self.assertEqual([name for name in os.listdir(self.root) if name.startswith("PWNED")], [])

    def test_a_refused_submission_keeps_out_and_says_how_to_submit_again(self):
        finished = self.grade("--slurm", env=dict(self.env, FAKE_SBATCH_REFUSE="Invalid partition name specified"))
        self.assertEqual(finished.returncode, 3, finished.stdout + finished.stderr)
        self.assertIn("sbatch refused grade.sbatch: sbatch: error: Invalid partition name specified", finished.stderr)
        self.assertIn("run the same command with --resume (RESUME=1)", finished.stderr)
        self.assertEqual(self.outcome("broken")["status"], "compile error")  # the compiles are kept
        finished = self.grade("--slurm", "--resume", env=self.env)
        self.assertEqual(finished.returncode, 0, finished.stdout + finished.stderr)
        self.assertEqual(len(self.submitted()), 2)

    def test_a_path_with_a_line_break_is_refused_before_anything_is_written(self):
        self.out = os.path.join(self.root, "grades\ntouch PWNED\n#")
        finished = self.grade("--slurm", env=self.env)
        self.assertEqual(finished.returncode, 2, finished.stdout + finished.stderr)
        self.assertIn("holds a line break", finished.stderr)
        self.assertFalse(os.path.exists(self.out))
        self.out = os.path.join(self.root, "out")
        finished = self.grade("--slurm", "--partition", "gpu\n#SBATCH --wrap=x", env=self.env)
        self.assertEqual(finished.returncode, 2, finished.stdout + finished.stderr)
        self.assertIn("not a Slurm value", finished.stderr)

    def test_a_resume_while_the_runs_jobs_are_queued_is_refused(self):
        finished = self.grade("--slurm", env=self.env)
        self.assertEqual(finished.returncode, 0, finished.stdout + finished.stderr)
        queued = dict(self.env, FAKE_SQUEUE_LISTS="1001 1003\n1001 1004\n1002 1002")
        for local_or_slurm in ((), ("--slurm",)):
            finished = self.grade("--resume", *local_or_slurm, env=queued)
            self.assertEqual(finished.returncode, 2, finished.stdout + finished.stderr)
            self.assertIn("the Slurm jobs 1001, 1002 of the run in", finished.stderr)
            self.assertIn("scancel 1001 1002", finished.stderr)
        self.assertEqual(len(self.submitted()), 2)  # nothing submitted again
        finished = self.grade("--resume", "--slurm", env=self.env)  # once they have ended
        self.assertEqual(finished.returncode, 0, finished.stdout + finished.stderr)
        self.assertEqual(len(self.submitted()), 4)


class OneRunAtATime(FakeGpus):
    """OUT/.work/lock (red team 10, F6): a second grade.py on an OUT in use is refused."""

    def test_a_second_grade_py_on_the_same_out_is_refused(self):
        for n in range(4):
            self.submit(f"s{n}", "FAKE_SLOW=1")
        first = subprocess.Popen(self.grade_command("--gpus", "all"), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True, env=dict(os.environ, **self.env))
        deadline = time.time() + 60
        while not glob.glob(os.path.join(self.out, ".work", "claims", "*", "*")):  # its workers are grading
            self.assertLess(time.time(), deadline, "the first run never started grading")
            time.sleep(0.1)
        second = self.grade("--gpus", "all", "--resume", env=self.env)
        self.assertEqual(second.returncode, 2, second.stdout + second.stderr)
        self.assertIn("is in use by another grade.py", second.stderr)
        out, errors = first.communicate(timeout=120)
        self.assertEqual(first.returncode, 0, out + errors)
        self.assertEqual({r["status"] for r in self.gradebook().values()}, {"graded"})

    def test_a_slurm_task_does_not_grade_beside_a_grade_py(self):
        from memlab_grader import lock
        os.makedirs(self.out)
        holder = subprocess.Popen([sys.executable, "-c", "import sys, time; sys.path.insert(0, sys.argv[1]); "
                                   "from memlab_grader import lock; lock.hold(sys.argv[2]); print('held', flush=True); "
                                   "time.sleep(60)", GRADER, self.out], stdout=subprocess.PIPE, text=True)
        self.addCleanup(lambda: (holder.kill(), holder.wait(), holder.stdout.close()))
        self.assertEqual(holder.stdout.readline().strip(), "held")
        with self.assertRaisesRegex(lock.OutInUse, "is in use by another grade.py"):
            lock.hold(self.out, shared=True, wait_seconds=1)


class KilledGradePy(FakeGpus):
    """Red team 11: grade.py killed with -9 while its workers grade. OUT's lock is held by
    every process working on it, so a second run is refused until the workers have ended."""

    def test_out_stays_locked_while_orphaned_workers_grade(self):
        for n in range(6):
            self.submit(f"s{n}", "FAKE_SLOW=3")
        env = dict(os.environ, **self.env, FAKE_GPU_LOG=os.path.join(self.root, "gpus.log"))
        first = subprocess.Popen(self.grade_command("--gpus", "all"), env=env, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL, start_new_session=True)
        claims = os.path.join(self.out, ".work", "claims", "*", "*")
        try:
            deadline = time.time() + 60
            while time.time() < deadline and not glob.glob(claims):
                time.sleep(0.2)
            self.assertTrue(glob.glob(claims), "no worker claimed a row")
            os.kill(first.pid, signal.SIGKILL)  # grade.py alone: its workers go on
            first.wait()
            second = subprocess.run(self.grade_command("--gpus", "all", "--resume"), env=env, capture_output=True,
                                    text=True, timeout=120)
            self.assertEqual(second.returncode, 2, second.stderr)
            self.assertIn("in use", second.stderr)
        finally:
            os.killpg(first.pid, signal.SIGKILL)  # the orphaned workers and their lab graders

