"""grade.py end to end on stand-in programs: statuses, partial credit, reports,
limits, no-GPU mode, resume, interruption, bad input and the sandbox; and the
classification of every way a lab grader's run can end."""
import json
import os
import signal
import subprocess
import time
import unittest

from helpers import GraderTestCase, why_no_sandbox
from memlab_grader import grading
from memlab_grader.cli import EXIT_DONE, EXIT_NOT_FINAL, exit_status
from memlab_grader.layouts import row_folder
from memlab_grader.sandbox import Finished


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
            "exits": ("grader error", "40"), "liar": ("graded", "0")}
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
        self.assertIsInstance(record["seed"], int)  # a new one each run: students cannot know it in advance
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

    def test_a_latin_1_comment_is_graded_and_the_scan_still_reads_the_file(self):
        # nvcc compiles a comment in Latin-1; it used to be "unreadable file", 0 points.
        for student, text in (("latin", "// r\u00e9sum\u00e9 in Latin-1\nall fine\n"),
                              ("hidden", "// caf\u00e9\n#include <thrust/sort.h>\n")):
            path = self.write(os.path.join(self.submissions, student, "vector_add.cu"), "")
            with open(path, "wb") as handle:
                handle.write(text.encode("latin-1"))
        finished = self.grade()
        self.assertEqual(finished.returncode, 0, finished.stdout + finished.stderr)
        statuses = {s: r["status"] for s, r in self.gradebook().items()}
        self.assertEqual(statuses, {"latin": "graded", "hidden": "forbidden API"})

    def test_a_name_pasted_by_a_macro_is_forbidden_after_the_preprocessor(self):
        # The first look reads the source as written and sees no fopen; the second reads the
        # file's lines as the preprocessor expanded them (the stand-in nvcc pastes CAT(a, b)).
        self.submit("pasted", '#define CAT(a, b) a##b\nvoid f() { CAT(fo, pen)("/results.json", "w"); }\n')
        self.submit("honest", "all fine\n")
        finished = self.grade()
        self.assertEqual(finished.returncode, 0, finished.stdout + finished.stderr)
        rows = self.gradebook()
        self.assertEqual({s: r["status"] for s, r in rows.items()}, {"pasted": "forbidden API", "honest": "graded"})
        with open(os.path.join(self.out, "students", "pasted", "feedback.txt"), encoding="utf-8") as handle:
            feedback = handle.read()
        self.assertIn("fopen (line 2)", feedback)
        self.assertIn("read in the compiled file", feedback)

    def test_no_student_folders_is_bad_input_that_says_why(self):
        finished = self.grade()
        self.assertEqual(finished.returncode, 2, finished.stdout + finished.stderr)
        self.assertIn("has no student folders", finished.stderr)
        self.assertFalse(os.path.exists(self.out))
        # One student's folder given for the class's.
        self.write(os.path.join(self.submissions, "vector_add.cu"), "all fine\n")
        finished = self.grade()
        self.assertEqual(finished.returncode, 2, finished.stdout + finished.stderr)
        self.assertIn("that is one student's folder", finished.stderr)

    def test_a_folder_name_that_is_not_utf_8_is_graded_under_its_latin_1_reading(self):
        # A zip made on another system: the folder's name in Latin-1. It used to fail the
        # skeleton as "forbidden API" and then crash writing the feedback.
        folder = os.path.join(os.fsencode(self.submissions), b"caf\xe9")
        os.makedirs(folder)
        with open(os.path.join(folder, b"vector_add.cu"), "w", encoding="utf-8") as handle:
            handle.write("all fine\n")
        finished = subprocess.run(self.grade_command(), capture_output=True, text=True, errors="replace", timeout=300)
        self.assertEqual(finished.returncode, 0, finished.stdout + finished.stderr)
        self.assertEqual(self.gradebook()["caf\u00e9"]["status"], "graded")
        # Its folder in OUT: the readable part of its name and a hash of the bytes (row_folder).
        folder = row_folder(os.fsdecode(b"caf\xe9"))
        self.assertRegex(folder, "^caf\u00e9-[0-9a-f]{10}$")
        self.assertTrue(os.path.exists(os.path.join(self.out, "students", folder, "feedback.txt")))

    def test_folder_names_never_collide(self):
        # Red team 8: a Latin-1 folder sorted before the UTF-8 folder of the same name, and a
        # marked name that another folder already had, each gave two rows one name.
        names = ["a\udcb5", "a\u00b5", "caf\u00e9", "caf\u00e9 (folder name not UTF-8)", "caf\udce9"]
        got = grading.student_names(names)
        self.assertEqual(len(set(got)), len(names), got)
        self.assertEqual(got[:4], ["a\u00b5 (folder name not UTF-8)", "a\u00b5", "caf\u00e9",
                                   "caf\u00e9 (folder name not UTF-8)"])
        self.assertEqual(got[4], "caf\u00e9 (folder name not UTF-8) 2")

    def test_folders_given_relative_to_the_working_folder(self):
        # make grade OUT=grades: every folder relative to where grade.py starts.
        self.submit("good", "all fine")
        command = self.grade_command()
        for flag in ("--out", "--submissions", "--kit"):
            where = command.index(flag) + 1
            command[where] = os.path.relpath(command[where], self.root)
        finished = subprocess.run(command, capture_output=True, text=True, cwd=self.root, timeout=300)
        self.assertEqual(finished.returncode, 0, finished.stdout + finished.stderr)
        self.assertEqual(self.gradebook()["good"]["status"], "graded")

    def test_without_a_gpu_compiles_and_marks_the_rest_not_run(self):
        self.submit("good", "all fine")
        self.submit("broken", "FAKE_COMPILE_ERROR")
        self.submit("forbidden", "#include <thrust/sort.h>")
        finished = self.grade(env={"FAKE_NO_GPU": "1"})
        self.assertEqual(finished.returncode, 1, finished.stderr)
        self.assertEqual({s: r["status"] for s, r in self.gradebook().items()},
                         {"good": "not run: no GPU", "broken": "compile error", "forbidden": "forbidden API"})
        # The row that has not run is not a zero anywhere a grade could be copied from.
        good = self.gradebook()["good"]
        self.assertEqual((good["total"], good["step1.correct"]), ("", ""))
        self.assertEqual(self.gradebook()["broken"]["total"], "0")
        student = os.path.join(self.out, "students", "good")
        with open(os.path.join(student, "feedback.txt"), encoding="utf-8") as handle:
            self.assertIn("Score: none yet", handle.read())
        self.assertFalse(os.path.exists(os.path.join(student, "results.json")))
        self.assertTrue(os.path.exists(os.path.join(self.out, "students", "broken", "results.json")))
        with open(os.path.join(self.out, "summary.md"), encoding="utf-8") as handle:
            summary = handle.read()
        # The two final rows, not the one that has not run.
        self.assertRegex(summary, r"\n +0-9% #+ 2\n")
        self.assertIn("| good | not run: no GPU | - |", summary)

    def test_trouble_in_the_students_runner_is_named_and_later_checks_count(self):
        self.submit("runner_crash", "FAKE_RUNNER=crashed@step2.correct")
        self.submit("runner_hang", "FAKE_RUNNER=timed_out@step3.correct")
        self.submit("runner_lost", "FAKE_RUNNER=context_lost@step1.speed")
        self.submit("runner_busy", "FAKE_RUNNER=left_work_running@step3.correct")
        self.submit("unloadable", "FAKE_NOT_LOADABLE")
        finished = self.grade()
        self.assertEqual(finished.returncode, 0, finished.stdout + finished.stderr)
        book = self.gradebook()
        self.assertEqual({s: (r["status"], r["total"]) for s, r in book.items()}, {
            "runner_crash": ("crashed", "60"), "runner_hang": ("timed out", "80"),
            "runner_lost": ("GPU error", "40"), "runner_busy": ("left GPU work running", "80"),
            "unloadable": ("build not loadable", "0")})
        self.assertEqual(book["runner_crash"]["detail"], "the student's runner: crashed (in step2.correct)")
        self.assertIn("undefined symbol: memlab_lab1_api", book["unloadable"]["detail"])
        self.assertNotIn(self.out, book["unloadable"]["detail"])  # no private staging paths
        feedback = open(os.path.join(self.out, "students", "runner_busy", "feedback.txt")).read()
        self.assertIn("Status: left GPU work running.", feedback)

    def test_without_the_reference_source_grading_stops_before_any_row(self):
        self.submit("alice", "all fine")
        with open(self.kit) as handle:
            kit = json.load(handle)
        kit["reference_source"] = os.path.join(self.root, "solutions", "vector_add.cu")  # a release holds none
        self.write(self.kit, json.dumps(kit))
        finished = self.grade()
        self.assertEqual(finished.returncode, 3, finished.stdout + finished.stderr)
        self.assertIn("grading needs the course's full tree", finished.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.out, "students", "alice")))

    def test_the_lab_grader_gets_a_call_timeout_and_the_sandbox(self):
        self.submit("alice", "all fine")
        log = os.path.join(self.root, "args.log")
        self.assertEqual(self.grade("--run-timeout", "30", env={"FAKE_ARGS_LOG": log}).returncode, 0)
        with open(log) as runs:
            calibration, alice = [json.loads(line) for line in runs]
        option = lambda run, name: run[run.index(name) + 1] if name in run else None  # noqa: E731
        self.assertEqual(option(calibration, "--call-timeout"), "200")  # a third of the reference's 600 s
        self.assertEqual(option(alice, "--call-timeout"), "10")  # a third of the run's limit
        self.assertEqual(option(alice, "--runner"), os.path.join(self.out, ".work", "kit", "fake_runner.sh"))
        # An unreadable build fails the method checks rather than skipping them, the reference's too.
        self.assertIn("--require-machine-code", calibration)
        self.assertIn("--require-machine-code", alice)
        # The method checks read nvcc's own device code for the file (kept by the compile),
        # and calibration grades the reference compiled the students' way.
        reference = os.path.join(self.out, ".work", "kit", "liblab1_reference_as_student.so")
        self.assertEqual(option(calibration, "--student"), reference)
        self.assertEqual(option(calibration, "--student-code"), reference[:-3] + ".fatbin")
        self.assertEqual(option(alice, "--student-code"), option(alice, "--student")[:-3] + ".fatbin")
        self.assertTrue(os.path.isfile(reference))
        # Its runner may register only that code (and the table's, which the stand-in table lacks).
        self.assertEqual(option(alice, "--allowed-code"), option(alice, "--student-code"))
        self.assertEqual(option(calibration, "--allowed-code"), option(calibration, "--student-code"))
        if why_no_sandbox():
            self.assertIsNone(option(alice, "--sandbox"))
            return
        sandbox = option(alice, "--sandbox")
        self.assertEqual(sandbox, os.path.join(grading.Layout(self.out).stage_dir("alice"), "sandbox.txt"))
        with open(sandbox) as handle:
            words = handle.read().splitlines()
        self.assertTrue(words[0].endswith("bwrap"), words)
        self.assertIn("--unshare-pid", words)
        build = os.path.realpath(option(alice, "--student"))
        self.assertIn(["--ro-bind", build, build], [words[i:i + 3] for i in range(len(words))])
        self.assertNotIn(os.path.realpath(option(alice, "--reference")), words)  # the reference stays hidden

    def test_a_short_run_limit_still_gives_each_call_5_s(self):
        self.submit("alice", "all fine")
        log = os.path.join(self.root, "args.log")
        self.assertEqual(self.grade("--run-timeout", "6", env={"FAKE_ARGS_LOG": log}).returncode, 0)
        with open(log) as runs:
            alice = json.loads(runs.readlines()[-1])
        self.assertEqual(alice[alice.index("--call-timeout") + 1], "5")

    def test_a_compile_that_never_ends_is_stopped(self):
        self.submit("template_bomb", "FAKE_COMPILE_HANG")
        finished = self.grade("--compile-timeout", "1")
        self.assertEqual(self.gradebook()["template_bomb"]["status"], "compile timed out", finished.stderr)


class Sandbox(GraderTestCase):
    def fake_bwrap(self, message):
        """A bwrap on PATH that fails as one without user namespaces does."""
        folder = os.path.join(self.root, "bin")
        self.write(os.path.join(folder, "bwrap"), f"#!/bin/sh\necho '{message}' >&2\nexit 1\n")
        os.chmod(os.path.join(folder, "bwrap"), 0o755)
        return {"PATH": folder + os.pathsep + os.environ["PATH"]}

    def test_the_sandbox_is_recorded(self):
        if why_no_sandbox():
            self.skipTest(why_no_sandbox())
        self.submit("alice", "all fine")
        finished = self.grade()
        self.assertEqual(finished.returncode, 0, finished.stderr)
        self.assertIn("Sandbox: each student's code runs under bubblewrap", finished.stdout)
        record = json.load(open(os.path.join(self.out, "run.json")))
        self.assertTrue(record["sandbox"]["used"])
        self.assertTrue(record["sandbox"]["command"][0].endswith("bwrap"))
        self.assertIn("runners sandboxed (bwrap)", open(os.path.join(self.out, "summary.md")).read())
        self.assertTrue(record["sessions"][-1]["compiles_sandboxed"])

    def test_no_sandbox_is_recorded_and_shown(self):
        self.submit("alice", "all fine")
        finished = self.grade("--no-sandbox")
        self.assertEqual(finished.returncode, 0, finished.stderr)
        self.assertIn("WARNING: --no-sandbox", finished.stdout)
        record = json.load(open(os.path.join(self.out, "run.json")))
        self.assertEqual(record["sandbox"]["used"], False)
        self.assertIn("--no-sandbox", record["sandbox"]["reason"])
        self.assertEqual(record["sessions"][-1]["sandbox"], False)
        for summary in ("summary.md", "summary.html"):
            self.assertIn("runners NOT sandboxed: --no-sandbox", open(os.path.join(self.out, summary)).read())
        self.assertEqual(self.gradebook()["alice"]["status"], "graded")

    def test_a_sandbox_that_cannot_start_stops_grading_and_says_why(self):
        self.submit("alice", "all fine")
        finished = self.grade(env=self.fake_bwrap("bwrap: setting up uid map: Permission denied"))
        self.assertEqual(finished.returncode, 3, finished.stdout + finished.stderr)
        self.assertIn("cannot start here", finished.stderr)
        self.assertIn("bwrap: setting up uid map: Permission denied", finished.stderr)
        self.assertIn("--no-sandbox", finished.stderr)
        self.assertFalse(os.path.exists(self.out), "a run that could not start leaves nothing")

    def test_without_a_gpu_a_sandbox_that_cannot_start_does_not_matter(self):
        self.submit("alice", "all fine")
        finished = self.grade(env=dict(self.fake_bwrap("bwrap: No permissions to create new namespace"),
                                       FAKE_NO_GPU="1"))
        self.assertEqual(finished.returncode, 1, finished.stdout + finished.stderr)
        record = json.load(open(os.path.join(self.out, "run.json")))
        self.assertEqual(record["sandbox"]["used"], False)
        self.assertIn("no GPU here", record["sandbox"]["reason"])
        self.assertIn("No permissions to create new namespace", record["sandbox"]["reason"])


class ExitCodes(GraderTestCase):
    def test_0_only_when_every_row_is_final(self):
        self.assertEqual(exit_status(["graded", "crashed", "compile error", "build not loadable"]), EXIT_DONE)
        for waiting in ("not graded yet", "not run: no GPU", "compiled"):
            self.assertEqual(exit_status(["graded", waiting]), EXIT_NOT_FINAL, waiting)

    def test_a_gpu_that_stops_being_usable_leaves_rows_to_grade_later(self):
        self.submit("a_first", "all fine")
        self.submit("b_gpu_gone", "FAKE_NO_GPU_NOW")
        finished = self.grade()
        self.assertEqual(finished.returncode, 1, finished.stdout + finished.stderr)
        self.assertIn("1 rows are not final (not run: no GPU)", finished.stderr)
        self.assertEqual({s: r["status"] for s, r in self.gradebook().items()},
                         {"a_first": "graded", "b_gpu_gone": "not run: no GPU"})

    def test_a_gpu_that_fails_mid_run_stops_the_run_with_no_final_row_for_the_rest(self):
        self.submit("a_first", "all fine")
        self.submit("b_gpu_fails", "FAKE_GPU_FAILED_NOW")
        self.submit("c_after", "all fine")
        finished = self.grade()
        self.assertEqual(finished.returncode, 1, finished.stdout + finished.stderr)
        self.assertIn("The GPU stopped being usable at b_gpu_fails's run (the GPU failed before the checks",
                      finished.stderr)
        self.assertEqual({s: r["status"] for s, r in self.gradebook().items()},
                         {"a_first": "graded", "b_gpu_fails": "not run: GPU failed", "c_after": "not graded yet"})
        with open(os.path.join(self.out, "run.json"), encoding="utf-8") as handle:
            self.assertIn("b_gpu_fails", json.load(handle)["sessions"][-1]["gpu_stopped"])


def ended(code=None, signal_number=None, timed_out=False, output_exceeded=False, output=b""):
    return Finished(exit_code=code, signal_number=signal_number, timed_out=timed_out,
                    output_exceeded=output_exceeded, seconds=1.0, output=output)


class Classifies(unittest.TestCase):
    """Each way a lab grader's run can end, and the row it gives."""

    limits = grading.Limits(run_seconds=30, sanitize_seconds=300, output_bytes=1000)
    checks = [dict(id="step1.correct", verdict="pass"), dict(id="step2.correct", verdict="fail")]

    def results(self, complete=True, trouble=None, running=None):
        return dict(checks=self.checks, complete=complete, running=running, facts={}, gpu_trouble=trouble)

    def classify(self, finished, results=None, sanitizer=False):
        return grading.classify(finished, results, self.limits, sanitizer=sanitizer)

    def test_a_complete_run_is_graded_whether_or_not_checks_failed(self):
        for code in (0, 1):
            outcome = self.classify(ended(code), self.results())
            self.assertEqual((outcome["status"], outcome["detail"], outcome["checks"]), ("graded", "", self.checks))

    def test_trouble_in_the_runner_names_the_status_and_keeps_the_checks(self):
        for kind, status in [("crashed", "crashed"), ("timed_out", "timed out"), ("context_lost", "GPU error"),
                             ("left_work_running", "left GPU work running"),
                             ("ran_while_stopped", "ran while stopped"),
                             ("memory_exhausted", "GPU memory exhausted")]:
            trouble = dict(kind=kind, check="step2.correct", message=f"what {kind} means")
            for code in (0, 1):
                outcome = self.classify(ended(code), self.results(trouble=trouble))
                self.assertEqual(outcome["status"], status, kind)
                self.assertEqual(outcome["checks"], self.checks, kind)  # their points count
                self.assertIn(f"what {kind} means", outcome["detail"])
                self.assertIn("step2.correct", outcome["detail"])

    def test_trouble_of_a_kind_not_known_here_is_the_graders(self):
        outcome = self.classify(ended(1), self.results(trouble=dict(kind="new_kind", check="x", message="m")))
        self.assertEqual(outcome["status"], "grader error")
        self.assertIn("new_kind", outcome["detail"])

    def test_a_build_that_does_not_load_shows_the_runners_message(self):
        output = b"lab1 runner: dlopen lib.so: undefined symbol: _Z10vector_addPKfS0_Pfm\ncould not be started\n"
        outcome = self.classify(ended(5, output=output), self.results(complete=False))
        self.assertEqual(outcome["status"], "build not loadable")
        self.assertIn("undefined symbol: _Z10vector_addPKfS0_Pfm", outcome["detail"])

    def test_the_lab_graders_own_troubles(self):
        self.assertEqual(self.classify(ended(77), None)["status"], "not run: no GPU")
        lost = self.classify(ended(4), self.results(complete=False, trouble=dict(
            kind="context_lost", check="step1.correct", message="an illegal memory access")))
        self.assertEqual((lost["status"], lost["detail"]), ("GPU error", "an illegal memory access after step1.correct"))
        outcome = self.classify(ended(2, output=b"bad option --frobnicate"), None)
        self.assertEqual(outcome["status"], "grader error")
        self.assertIn("bad option --frobnicate", outcome["detail"])
        # Exit 3: the GPU failed before the student's runner started; the machine's, not final.
        failed = self.classify(ended(3, output=b"lab1 grader: the GPU failed before any check ran: Xid 79\n"), None)
        self.assertEqual(failed["status"], "not run: GPU failed")
        self.assertIn(failed["status"], grading.NOT_FINAL)
        self.assertEqual(grading.machine_failure(failed),
                         "the GPU failed before the checks: lab1 grader: the GPU failed before any check ran: Xid 79")
        self.assertEqual(grading.machine_failure(self.classify(ended(77), None)), "no usable GPU")
        self.assertEqual(grading.machine_failure(outcome), "")
        early = self.classify(ended(0), self.results(complete=False, running="step2.correct"))
        self.assertEqual(early["status"], "grader error")
        self.assertIn("exit status 0 before its checks finished during step2.correct", early["detail"])

    def test_what_grade_py_itself_sees(self):
        crashed = self.classify(ended(signal_number=signal.SIGSEGV), self.results(complete=False, running="step1.speed"))
        self.assertEqual(crashed["status"], "crashed")
        self.assertIn("SIGSEGV", crashed["detail"])
        self.assertIn("during step1.speed", crashed["detail"])
        late = self.classify(ended(timed_out=True), self.results(complete=False, running="step2.correct"))
        self.assertEqual((late["status"], late["detail"]), ("timed out", "still running after 30 s during step2.correct"))
        self.assertEqual(self.classify(ended(output_exceeded=True), None)["status"], "output limit")

    def test_the_memcheck_gate(self):
        output = (b"  step 1  vector_add is correct ... ========= Invalid __global__ write of size 4 bytes\n"
                  b"=========     at corpus_one_past(float *, int)+0x50\n========= ERROR SUMMARY: 1 error\n")
        outcome = self.classify(ended(grading.SANITIZER_FOUND_ERRORS, output=output), self.results(), sanitizer=True)
        self.assertEqual((outcome["status"], outcome["checks"]), ("memory error", []))
        self.assertEqual(outcome["detail"].splitlines()[1], "========= Invalid __global__ write of size 4 bytes")
        late = self.classify(ended(timed_out=True), None, sanitizer=True)
        self.assertEqual(late["detail"], "still running after 300 s (under compute-sanitizer)")


class Resumes(GraderTestCase):
    def test_resume_grades_only_what_is_not_final(self):
        for name in ("a", "b", "c"):
            self.submit(name, "all fine")
        log = os.path.join(self.root, "runs.log")
        self.assertEqual(self.grade(env={"FAKE_RUN_LOG": log}).returncode, 0)
        seed = json.load(open(os.path.join(self.out, "run.json")))["seed"]
        os.remove(os.path.join(self.out, "students", "b", "outcome.json"))
        open(log, "w").close()
        finished = self.grade("--resume", env={"FAKE_RUN_LOG": log})
        self.assertEqual(finished.returncode, 0, finished.stderr)
        self.assertEqual(json.load(open(os.path.join(self.out, "run.json")))["seed"], seed)  # the same inputs
        with open(log) as runs:
            stages = runs.read().split()
        self.assertEqual(stages[0], "kit")  # the reference (calibration) first
        self.assertEqual(self.students_staged(stages), ["b"])
        self.assertEqual({r["status"] for r in self.gradebook().values()}, {"graded"})

    def test_resume_grades_again_a_file_changed_since(self):
        for name in ("a", "b"):
            self.submit(name, "all fine")
        log = os.path.join(self.root, "runs.log")
        self.assertEqual(self.grade(env={"FAKE_RUN_LOG": log}).returncode, 0)
        self.submit("b", "all fine, and a comment added since")
        open(log, "w").close()
        finished = self.grade("--resume", env={"FAKE_RUN_LOG": log})
        self.assertEqual(finished.returncode, 0, finished.stderr)
        with open(log) as runs:
            self.assertEqual(self.students_staged(runs.read().split()), ["b"])

    def test_resume_settles_again_a_file_added_or_removed_since(self):
        self.submit("a", "all fine")
        os.makedirs(os.path.join(self.submissions, "late"))
        self.assertEqual(self.grade().returncode, 0)
        self.assertEqual(self.gradebook()["late"]["status"], "missing file")
        self.submit("late", "all fine")
        os.remove(os.path.join(self.submissions, "a", "vector_add.cu"))
        finished = self.grade("--resume")
        self.assertEqual(finished.returncode, 0, finished.stderr)
        rows = self.gradebook()
        self.assertEqual((rows["a"]["status"], rows["late"]["status"]), ("missing file", "graded"))

    def stop_once_stored(self, student):
        """Grades, and sends SIGTERM (a batch system's stop) half a second after @p student's row
        is stored; returns grade.py's exit status and what it wrote to stderr."""
        process = subprocess.Popen(self.grade_command(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        outcome = os.path.join(self.out, "students", student, "outcome.json")
        deadline = time.monotonic() + 60
        while not os.path.exists(outcome) and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(0.5)
        process.send_signal(signal.SIGTERM)
        _, errors = process.communicate(timeout=60)
        return process.returncode, errors

    def test_an_interrupted_run_keeps_its_finished_rows(self):
        self.submit("a_first", "all fine")
        self.submit("b_slow", "FAKE_SLOW=60")
        self.submit("c_last", "all fine")
        returncode, errors = self.stop_once_stored("a_first")  # b_slow is running then
        self.assertEqual(returncode, 130, errors)
        self.assertIn("--resume", errors)
        book = self.gradebook()
        self.assertEqual(book["a_first"]["status"], "graded")
        self.assertEqual(book["b_slow"]["status"], "not graded yet")
        finished = self.grade("--resume", env={"FAKE_NOT_SLOW": "1"})
        self.assertEqual(finished.returncode, 0, finished.stderr)
        self.assertEqual({r["status"] for r in self.gradebook().values()}, {"graded"})

    def rebuild_kit(self, architectures):
        """The kit as another machine builds it: other binaries, for @p architectures."""
        self.write(os.path.join(self.root, "kit", "table.o"), f"built for {architectures}")
        with open(self.kit, encoding="utf-8") as handle:
            kit = json.load(handle)
        self.write(self.kit, json.dumps(dict(kit, architectures=architectures)))

    def compile_without_a_gpu_then_resume_on_one(self, architectures_without, architectures_with):
        self.submit("good", "all fine")
        self.submit("broken", "FAKE_COMPILE_ERROR")
        self.submit("forbidden", "#include <cublas_v2.h>")
        self.rebuild_kit(architectures_without)
        self.assertEqual(self.grade(env={"FAKE_NO_GPU": "1"}).returncode, 1)
        self.rebuild_kit(architectures_with)
        finished = self.grade("--resume")
        self.assertEqual(finished.returncode, 0, finished.stderr)
        self.assertEqual({s: r["status"] for s, r in self.gradebook().items()},
                         {"good": "graded", "broken": "compile error", "forbidden": "forbidden API"})
        with open(os.path.join(self.out, "run.json"), encoding="utf-8") as handle:
            return finished, json.load(handle)

    def test_a_gpu_server_compiles_again_what_a_machine_without_a_gpu_settled_by_compiling(self):
        # Its kit targets other architectures, and its host compiler may differ: no record of the
        # two machines shows a compile ends alike on both (red teams 35 and 38: atomicAdd on a
        # float4 fails for sm_75 only; gcc 13 no longer includes <cstdint> indirectly).
        finished, record = self.compile_without_a_gpu_then_resume_on_one("75-real;80-real", "90")
        without, gpu_server = record["sessions"]
        self.assertEqual((without["architectures"], without["gpu"], without["compiled"], without["graded_on_gpu"]),
                         ("75-real;80-real", None, ["broken", "forbidden", "good"], []))
        self.assertEqual((gpu_server["architectures"], gpu_server["compiled"], gpu_server["graded_on_gpu"],
                          gpu_server["kept_rows"]), ("90", ["broken", "forbidden", "good"], ["good"], 0))
        self.assertIn("the architectures (75-real;80-real then, 90 now)", gpu_server["compiled_again"])
        self.assertIn("compiled again here", finished.stdout)
        self.assertNotEqual(without["kit"], gpu_server["kit"])
        self.assertEqual(record["kit"]["fingerprint"], gpu_server["kit"])  # the kit that graded on the GPU

    def test_a_resume_with_the_same_kit_keeps_what_the_compiler_settled(self):
        self.submit("broken", "FAKE_COMPILE_ERROR")
        self.submit("slow", "FAKE_SLOW=60")
        self.stop_once_stored("broken")
        finished = self.grade("--resume", env={"FAKE_NOT_SLOW": "1"})
        self.assertEqual(finished.returncode, 0, finished.stderr)
        with open(os.path.join(self.out, "run.json"), encoding="utf-8") as handle:
            resumed = json.load(handle)["sessions"][1]
        self.assertEqual((resumed["compiled"], resumed["kept_rows"]), (["slow"], 1))
        self.assertNotIn("compiled_again", resumed)

    def settle_by_compiling_then_resume(self, *resume_arguments, change=lambda: None):
        """A compile error settled, @p change made, then --resume: the resumed session's record."""
        self.submit("broken", "FAKE_COMPILE_ERROR")
        self.assertEqual(self.grade(env={"FAKE_NO_GPU": "1"}).returncode, 0)  # its one row is final
        change()
        finished = self.grade("--resume", *resume_arguments)
        self.assertEqual(finished.returncode, 0, finished.stderr)
        self.assertEqual(self.gradebook()["broken"]["status"], "compile error")
        with open(os.path.join(self.out, "run.json"), encoding="utf-8") as handle:
            return json.load(handle)["sessions"][1]

    def test_rows_compiled_against_other_headers_are_compiled_again(self):
        # The course's git description cannot tell two checkouts apart (a tarball has none, and
        # "-dirty" names no edit), and the kit's binaries need not change with a header (red team 38).
        header = self.write(os.path.join(self.root, "course", "lab1.cuh"), "void vector_add(int);\n")
        with open(self.kit, encoding="utf-8") as handle:
            kit = json.load(handle)
        self.write(self.kit, json.dumps(dict(kit, include_dirs=[os.path.dirname(header)])))
        resumed = self.settle_by_compiling_then_resume(
            change=lambda: self.write(header, "void vector_add(unsigned long);\n"))
        self.assertEqual((resumed["compiled"], resumed["kept_rows"]), (["broken"], 0))
        self.assertEqual(resumed["compiled_again"],
                         "rows settled by the compiler: their compile differed from this one in the course's "
                         "headers, the link flags, the forbidden libraries or the grader's scan")

    def test_rows_compiled_with_another_time_limit_are_compiled_again(self):
        resumed = self.settle_by_compiling_then_resume("--compile-timeout", "600")
        self.assertEqual(resumed["compiled"], ["broken"])
        self.assertIn("the compile time limit", resumed["compiled_again"])

    def test_rows_compiled_in_another_environment_are_compiled_again(self):
        def change():
            os.environ["NVCC_APPEND_FLAGS"] = "-DFIXED"
        try:
            resumed = self.settle_by_compiling_then_resume(change=change)
        finally:
            os.environ.pop("NVCC_APPEND_FLAGS", None)
        self.assertEqual(resumed["compiled"], ["broken"])
        self.assertIn("the compiler's environment variables", resumed["compiled_again"])

    def test_a_compile_timeout_is_compiled_again_on_the_same_machine(self):
        # A loaded machine may have caused it (red team 39): a fair student must not keep it.
        self.submit("hangs", "FAKE_COMPILE_HANG")
        self.assertEqual(self.grade("--compile-timeout", "1").returncode, 0)
        self.assertEqual(self.gradebook()["hangs"]["status"], "compile timed out")
        finished = self.grade("--resume", "--compile-timeout", "1")
        self.assertEqual(finished.returncode, 0, finished.stderr)
        with open(os.path.join(self.out, "run.json"), encoding="utf-8") as handle:
            resumed = json.load(handle)["sessions"][1]
        self.assertEqual((resumed["compiled"], resumed["compiled_again"]),
                         (["hangs"], "rows settled by the compiler: a compile that ran out of time, or that the "
                                     "grader could not stage or read, may succeed now"))

    def test_a_grader_error_in_compiling_is_tried_again_on_another_kit(self):
        # Red team 39: it is no row graded on a GPU, so it must not make --resume refuse the GPU server.
        self.submit("good", "all fine")
        self.submit("no_device_code", "FAKE_NO_KEEP")
        self.rebuild_kit("75-real;80-real")
        self.assertEqual(self.grade(env={"FAKE_NO_GPU": "1"}).returncode, 1)
        self.assertEqual(self.gradebook()["no_device_code"]["status"], "grader error")
        self.rebuild_kit("90")
        finished = self.grade("--resume")
        self.assertEqual(finished.returncode, 0, finished.stderr)
        with open(os.path.join(self.out, "run.json"), encoding="utf-8") as handle:
            self.assertEqual(json.load(handle)["sessions"][1]["compiled"], ["good", "no_device_code"])

    def test_an_interrupted_resume_leaves_the_rows_to_compile_again_not_final(self):
        # Red team 39: run.json names the new kit from the session's start, so a row settled by the
        # earlier kit's compile must not stay final on disk, or the next --resume would keep it.
        self.submit("broken", "FAKE_COMPILE_ERROR")
        self.rebuild_kit("75-real;80-real")
        self.assertEqual(self.grade(env={"FAKE_NO_GPU": "1"}).returncode, 0)
        self.write(os.path.join(self.root, "kit", "reference.cu"), "the reference FAKE_SLOW=30\n")  # a slow calibration
        self.rebuild_kit("90")
        process = subprocess.Popen(self.grade_command("--resume"), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True)
        outcome = os.path.join(self.out, "students", "broken", "outcome.json")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with open(outcome, encoding="utf-8") as handle:
                if json.load(handle)["status"] == "not graded yet":
                    break
            time.sleep(0.1)
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=60)
        with open(outcome, encoding="utf-8") as handle:
            self.assertEqual(json.load(handle)["status"], "not graded yet")
        finished = self.grade("--resume", env={"FAKE_NOT_SLOW": "1"})
        self.assertEqual(finished.returncode, 0, finished.stderr)
        with open(os.path.join(self.out, "run.json"), encoding="utf-8") as handle:
            self.assertEqual(json.load(handle)["sessions"][-1]["compiled"], ["broken"])

    def test_resume_refuses_other_headers_beside_rows_graded_on_a_gpu(self):
        header = self.write(os.path.join(self.root, "course", "lab1.cuh"), "void vector_add(int);\n")
        with open(self.kit, encoding="utf-8") as handle:
            kit = json.load(handle)
        self.write(self.kit, json.dumps(dict(kit, include_dirs=[os.path.dirname(header)])))
        self.submit("a", "all fine")
        self.assertEqual(self.grade().returncode, 0)
        self.write(header, "void vector_add(unsigned long);\n")
        finished = self.grade("--resume")
        self.assertEqual(finished.returncode, 3)
        self.assertIn("the course's headers", finished.stderr)
        self.assertIn("1 rows (a) were graded on a GPU with the earlier one", finished.stderr)

    def test_resume_refuses_a_changed_grader(self):
        self.submit("a", "all fine")
        self.assertEqual(self.grade().returncode, 0)
        self.write(os.path.join(self.root, "kit", "table.o"), "rebuilt")
        finished = self.grade("--resume")
        self.assertEqual(finished.returncode, 3)
        self.assertIn("has changed since the run", finished.stderr)
        self.assertIn("1 rows (a) were graded on a GPU with the earlier one", finished.stderr)


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

    def test_a_kit_that_cannot_read_machine_code_is_refused_before_anything_is_written(self):
        with open(self.kit) as handle:
            kit = json.load(handle)
        for missing in ("", os.path.join(self.root, "no", "cuobjdump")):
            with open(self.kit, "w") as handle:
                json.dump(dict(kit, cuobjdump=missing), handle)
            self.submit("alice", "all fine")
            finished = self.grade()
            self.assertEqual(finished.returncode, 3, finished.stderr)
            self.assertIn("cuobjdump and nvdisasm, which come with the CUDA toolkit, were not found", finished.stderr)
            self.assertIn("scripts/bootstrap.sh --machine-code", finished.stderr)
            self.assertFalse(os.path.exists(self.out))

    def test_an_out_folder_that_is_not_empty(self):
        self.write(os.path.join(self.out, "something"), "")
        finished = self.grade()
        self.assertEqual(finished.returncode, 2)
        self.assertIn("already exists and is not empty", finished.stderr)
        self.assertEqual(os.listdir(self.out), ["something"])


if __name__ == "__main__":
    unittest.main()
