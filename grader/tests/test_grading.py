"""grade.py end to end on stand-in programs: statuses, partial credit, reports,
limits, no-GPU mode, resume, interruption and bad input."""
import json
import os
import signal
import subprocess
import time
import unittest

from helpers import GraderTestCase


class GradesAClass(GraderTestCase):
    def test_each_kind_of_submission_gets_its_row(self):
        self.submit("good", "all fine")
        self.submit("partial", "FAKE_PASS_STEPS=2")
        self.submit("slow", "FAKE_RATIO=2.125")
        self.submit("broken", "FAKE_COMPILE_ERROR")
        os.makedirs(os.path.join(self.submissions, "absent"))
        self.write(os.path.join(self.submissions, "absent", "notes.txt"), "wrong file name")
        self.submit("forbidden", 'int main() { auto f = fopen("x", "r"); }')
        self.submit("reads_reference", "FAKE_INCLUDES_REFERENCE")
        self.submit("crash", "FAKE_CRASH_IN=step2.correct")
        self.submit("hang", "FAKE_HANG")
        self.submit("spam", "FAKE_SPAM")
        self.submit("lost", "FAKE_CONTEXT_LOST")
        self.submit("hoards", "FAKE_MEMORY")
        self.submit("exits", "FAKE_EXIT_EARLY")
        self.submit("liar", "FAKE_PASS_STEPS=0 FAKE_PRINTS_PASS")
        self.write(os.path.join(self.submissions, ".hidden", "vector_add.cu"), "not a student")
        finished = self.grade("--run-timeout", "2", "--output-limit", "20000")
        self.assertEqual(finished.returncode, 0, finished.stdout + finished.stderr)
        book = self.gradebook()
        expected = {
            "good": ("graded", "100"), "partial": ("graded", "80"), "slow": ("graded", "90"),
            "broken": ("compile error", "0"), "absent": ("missing file", "0"), "forbidden": ("forbidden API", "0"),
            "reads_reference": ("forbidden API", "0"), "crash": ("crashed", "60"), "hang": ("timed out", "0"),
            "spam": ("output limit", "0"), "lost": ("GPU error", "40"), "hoards": ("GPU memory exhausted", "100"),
            "exits": ("crashed", "40"), "liar": ("graded", "0")}
        self.assertEqual({s: (r["status"], r["total"]) for s, r in book.items()}, expected)
        self.assertIn("fopen (line 1)", book["forbidden"]["detail"])
        self.assertIn("solutions/lab1_caching/vector_add.cu", book["reads_reference"]["detail"])
        self.assertIn("SIGSEGV", book["crash"]["detail"])
        self.assertIn("during step2.correct", book["crash"]["detail"])
        self.assertIn("during step1.correct", book["hang"]["detail"])
        self.assertIn("illegal memory access", book["lost"]["detail"])
        self.assertEqual(book["partial"]["step3.correct"], "0")
        self.assertEqual(book["slow"]["step1.speed"], "10")  # halfway from 1.25x to 3x

        feedback = open(os.path.join(self.out, "students", "broken", "feedback.txt")).read()
        self.assertIn('identifier "FAKE_COMPILE_ERROR" is undefined', feedback)
        self.assertNotIn(self.out, feedback)  # no private staging paths
        report = open(os.path.join(self.out, "students", "partial", "feedback.txt")).read()
        self.assertIn("fake report: 4 checks", report)
        gradescope = json.load(open(os.path.join(self.out, "students", "slow", "results.json")))
        self.assertEqual(gradescope["score"], 90)
        self.assertEqual([t["max_score"] for t in gradescope["tests"]], [40, 20, 20, 20])
        self.assertEqual(gradescope["tests"][1]["score"], 10)
        summary = open(os.path.join(self.out, "summary.md")).read()
        self.assertIn("| graded | 4 |", summary)
        self.assertIn("| step1.speed | 5 | 1.00 | 1.00 | 2.12 | 4 of 5 |", summary)
        self.assertIn("<svg", open(os.path.join(self.out, "summary.html")).read())
        record = json.load(open(os.path.join(self.out, "run.json")))
        self.assertEqual(record["gpu"]["GPU"], "Fake GPU")
        self.assertEqual(record["seed"], 20261122)
        self.assertEqual(record["run_time_limit"], 2)
        self.assertEqual(record["points"]["step1.speed"], dict(points=20, full_at=1.25, zero_at=3.0))
        self.assertEqual(len(record["kit"]["fingerprint"]["grader"]), 64)
        self.assertFalse(os.path.exists(os.path.join(self.out, "students", ".hidden")))

    def test_an_override_file_changes_the_points(self):
        self.submit("slow", "FAKE_RATIO=2.0")
        self.write(os.path.join(self.root, "mine.txt"), "step1.speed 40 1.5 2.5\nstep1.correct 20\n")
        finished = self.grade("--points", os.path.join(self.root, "mine.txt"))
        self.assertEqual(finished.returncode, 0, finished.stderr)
        self.assertEqual(self.gradebook()["slow"]["step1.speed"], "20")
        self.assertEqual(self.gradebook()["slow"]["max"], "100")

    def test_without_a_gpu_compiles_and_marks_the_rest_not_run(self):
        self.submit("good", "all fine")
        self.submit("broken", "FAKE_COMPILE_ERROR")
        self.submit("forbidden", "#include <thrust/sort.h>")
        finished = self.grade(env={"FAKE_NO_GPU": "1"})
        self.assertEqual(finished.returncode, 1, finished.stderr)
        self.assertEqual({s: r["status"] for s, r in self.gradebook().items()},
                         {"good": "not run: no GPU", "broken": "compile error", "forbidden": "forbidden API"})

    def test_a_compile_that_never_ends_is_stopped(self):
        self.submit("template_bomb", "FAKE_COMPILE_HANG")
        finished = self.grade("--compile-timeout", "1")
        self.assertEqual(self.gradebook()["template_bomb"]["status"], "compile timed out", finished.stderr)


class Resumes(GraderTestCase):
    def test_resume_grades_only_what_is_not_final(self):
        for name in ("a", "b", "c"):
            self.submit(name, "all fine")
        log = os.path.join(self.root, "runs.log")
        self.assertEqual(self.grade(env={"FAKE_RUN_LOG": log}).returncode, 0)
        os.remove(os.path.join(self.out, "students", "b", "outcome.json"))
        open(log, "w").close()
        finished = self.grade("--resume", env={"FAKE_RUN_LOG": log})
        self.assertEqual(finished.returncode, 0, finished.stderr)
        with open(log) as runs:
            self.assertEqual(runs.read().split(), ["kit", "b"])  # the reference (calibration), then b
        self.assertEqual({r["status"] for r in self.gradebook().values()}, {"graded"})

    def test_an_interrupted_run_keeps_its_finished_rows(self):
        self.submit("a_first", "all fine")
        self.submit("b_slow", "FAKE_SLOW=60")
        self.submit("c_last", "all fine")
        process = subprocess.Popen(self.grade_command(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        outcome = os.path.join(self.out, "students", "a_first", "outcome.json")
        deadline = time.monotonic() + 60
        while not os.path.exists(outcome) and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(0.5)  # b_slow is running now
        process.send_signal(signal.SIGTERM)
        _, errors = process.communicate(timeout=60)
        self.assertEqual(process.returncode, 130, errors)
        self.assertIn("--resume", errors)
        book = self.gradebook()
        self.assertEqual(book["a_first"]["status"], "graded")
        self.assertEqual(book["b_slow"]["status"], "not graded yet")
        finished = self.grade("--resume", env={"FAKE_NOT_SLOW": "1"})
        self.assertEqual(finished.returncode, 0, finished.stderr)
        self.assertEqual({r["status"] for r in self.gradebook().values()}, {"graded"})

    def test_resume_refuses_a_changed_grader(self):
        self.submit("a", "all fine")
        self.assertEqual(self.grade().returncode, 0)
        self.write(os.path.join(self.root, "kit", "table.o"), "rebuilt")
        finished = self.grade("--resume")
        self.assertEqual(finished.returncode, 3)
        self.assertIn("has changed since the run", finished.stderr)


class RefusesBadInput(GraderTestCase):
    def assert_refused(self, message, *arguments, command=None):
        finished = self.grade(*arguments) if command is None else __import__("subprocess").run(
            command, capture_output=True, text=True)
        self.assertEqual(finished.returncode, 2, finished.stdout + finished.stderr)
        self.assertIn(message, finished.stderr)
        self.assertFalse(os.path.exists(self.out), "nothing may be written for bad input")

    def test_unknown_lab(self):
        command = self.grade_command()
        command[command.index("--lab") + 1] = "9"
        self.assert_refused("there is no lab '9'; the labs are lab1, lab2, lab3, lab4, lab5", command=command)

    def test_missing_submissions_folder(self):
        os.rmdir(self.submissions)
        self.assert_refused("no such folder")

    def test_resume_without_an_earlier_run(self):
        self.assert_refused("holds no earlier run", "--resume")

    def test_a_points_file_naming_an_unknown_check(self):
        self.write(os.path.join(self.root, "mine.txt"), "step9.speed 10\n")
        self.assert_refused("no such check in this lab: step9.speed", "--points", os.path.join(self.root, "mine.txt"))

    def test_a_points_file_with_a_bad_line(self):
        self.write(os.path.join(self.root, "mine.txt"), "step1.speed 10 3.0 1.5\n")
        self.assert_refused("mine.txt:1: need 1 <= full_at < zero_at", "--points", os.path.join(self.root, "mine.txt"))

    def test_bad_option_values(self):
        self.assert_refused("--jobs must be positive", "--jobs", "0")

    def test_an_out_folder_that_is_not_empty(self):
        self.write(os.path.join(self.out, "something"), "")
        finished = self.grade()
        self.assertEqual(finished.returncode, 2)
        self.assertIn("already exists and is not empty", finished.stderr)
        self.assertEqual(os.listdir(self.out), ["something"])


if __name__ == "__main__":
    unittest.main()
