"""The submissions instructors receive: each layout is found and read, odd names are graded
with a note or refused with a clear row, hostile zips yield nothing but the lab's file, and
the exports leave rows that have not run empty."""
import csv
import io
import json
import os
import stat
import unittest
import zipfile

from helpers import IN_COURSE, WANTED, GraderTestCase, make_zip
from memlab_grader import exports, layouts, reports
from memlab_grader.cli import compiled_summary
from memlab_grader.layouts import LayoutError, find, read_source
from memlab_grader.points import Rule

class LayoutTestCase(GraderTestCase):
    def find(self):
        return find(self.submissions, WANTED, IN_COURSE)

    def by_name(self, found=None):
        return {s.student: s for s in (found or self.find()).submissions}

    def source_text(self, submission):
        return read_source(submission).decode()


class FindsEachLayout(LayoutTestCase):
    def test_one_folder_per_student(self):
        self.submit("ada", "ada's")
        self.submit("grace", "grace's")
        found = self.find()
        self.assertEqual(found.layout, "one folder per student")
        self.assertEqual([s.student for s in found.submissions], ["ada", "grace"])
        self.assertEqual(self.source_text(found.submissions[0]), "ada's\n")
        self.assertEqual(found.submissions[0].student_id, "")

    def test_github_classroom_clones(self):
        for user in ("ada-lovelace", "alan-turing", "grace"):
            clone = os.path.join(self.submissions, f"lab1-caching-{user}")
            self.write(os.path.join(clone, ".git", "HEAD"), "ref: refs/heads/main\n")
            self.write(os.path.join(clone, IN_COURSE), f"{user}'s\n")
            self.write(os.path.join(clone, "labs", "lab2_coalescing", "matrix_sums.cu"), "another lab\n")
        found = self.find()
        self.assertIn("GitHub Classroom", found.layout)
        self.assertIn("'lab1-caching-'", found.layout)
        rows = self.by_name(found)
        self.assertEqual(sorted(rows), ["ada-lovelace", "alan-turing", "grace"])
        self.assertEqual((rows["grace"].student_id, rows["grace"].id_kind), ("grace", "GitHub user name"))
        self.assertEqual(self.source_text(rows["ada-lovelace"]), "ada-lovelace's\n")
        self.assertEqual(rows["ada-lovelace"].note, "")

    def test_one_zip_per_student(self):
        make_zip(os.path.join(self.submissions, "ada.zip"), [("vector_add.cu", "ada's\n"), ("notes.txt", "hi")])
        # "Compress" on a Mac: a folder, and AppleDouble copies beside it.
        make_zip(os.path.join(self.submissions, "grace.zip"), [
            ("grace-lab1/vector_add.cu", "grace's\n"), ("__MACOSX/grace-lab1/._vector_add.cu", "junk")])
        found = self.find()
        self.assertEqual(found.layout, "one zip per student")
        rows = self.by_name(found)
        self.assertEqual(self.source_text(rows["ada"]), "ada's\n")
        self.assertEqual(self.source_text(rows["grace"]), "grace's\n")
        self.assertEqual((rows["ada"].note, rows["grace"].note), ("", ""))

    def test_canvas_download(self):
        folder = self.submissions
        self.write(os.path.join(folder, "lovelaceada_12345_67890_vector_add.cu"), "ada's\n")
        self.write(os.path.join(folder, "turingalan_LATE_222_333_vector_add-1.cu"), "alan's\n")
        self.write(os.path.join(folder, "hoppergrace_444_555_notes.txt"), "no code\n")
        self.write(os.path.join(folder, "smithjo_600_601_vector_add.cu"), "first jo\n")
        self.write(os.path.join(folder, "smithjo_700_701_vector_add.cu"), "second jo\n")
        found = self.find()
        self.assertIn("Canvas", found.layout)
        rows = self.by_name(found)
        self.assertEqual(sorted(rows), ["hoppergrace", "lovelaceada", "smithjo (600)", "smithjo (700)", "turingalan"])
        ada, alan = rows["lovelaceada"], rows["turingalan"]
        self.assertEqual((ada.student_id, ada.id_kind, ada.note), ("12345", "Canvas user id", ""))
        self.assertEqual(self.source_text(alan), "alan's\n")
        self.assertIn("Canvas marked it late", alan.note)
        self.assertIn("'-1' added (Canvas's suffix for a file uploaded again)", alan.note)
        self.assertEqual(rows["hoppergrace"].problem[0], "missing file")
        self.assertIn("notes.txt", rows["hoppergrace"].problem[1])
        self.assertEqual(self.source_text(rows["smithjo (700)"]), "second jo\n")

    def test_gradescope_export(self):
        export = os.path.join(self.submissions, "assignment_9100_export")
        self.write(os.path.join(export, "submission_metadata.yml"), (
            "submission_101:\n"
            "  :submitters:\n"
            "  - :name: Ada Lovelace\n"
            "    :sid: '1815'\n"
            "    :email: ada@example.edu\n"
            "  :created_at: 2026-01-10 12:00:00.000000000 -08:00\n"
            "  :score: 0.0\n"
            "  :history:\n"
            "  - :id: 99\n"
            "    :name: not a submitter\n"
            "submission_102:\n"
            "  :submitters:\n"
            "  - :name: Pair One\n"
            "    :sid: '200'\n"
            "    :email: one@example.edu\n"
            "  - :name: \"Pair Two\"\n"
            "    :sid: '201'\n"
            "    :email: two@example.edu\n"
            "submission_103:\n"
            "  :submitters:\n"
            "  - :name: ../../etc\n"
            "    :email: dots@example.edu\n"
            "submission_104:\n"
            "  :submitters:\n"
            "  - :name: Never Submitted\n"))
        self.write(os.path.join(export, "submission_101", "vector_add.cu"), "ada's\n")
        self.write(os.path.join(export, "submission_102", "src", "vector_add.cu"), "the pair's\n")
        self.write(os.path.join(export, "submission_103", "vector_add.cu"), "dots'\n")
        self.write(os.path.join(export, "submission_105", "vector_add.cu"), "who?\n")
        found = self.find()
        self.assertIn("Gradescope", found.layout)
        self.assertIn("Gradescope's export is in assignment_9100_export/", found.warnings[0])
        self.assertTrue(any("submission_105 is not in submission_metadata.yml" in w for w in found.warnings))
        self.assertTrue(any("no folder here: submission_104" in w for w in found.warnings))
        rows = self.by_name(found)
        self.assertEqual(sorted(rows), ["Ada Lovelace", "Pair One & Pair Two", "_.._.._etc", "submission_105"])
        ada, pair = rows["Ada Lovelace"], rows["Pair One & Pair Two"]
        self.assertEqual((ada.student_id, ada.id_kind, ada.email, ada.members), ("1815", "Gradescope SID",
                                                                               "ada@example.edu", []))
        self.assertEqual([m["id"] for m in pair.members], ["200", "201"])
        self.assertEqual(self.source_text(pair), "the pair's\n")
        self.assertIn("not at the top", pair.note)


class SaysWhatLookedWrong(LayoutTestCase):
    def assert_refused(self, message):
        with self.assertRaises(LayoutError) as refused:
            self.find()
        self.assertIn(message, str(refused.exception))

    def test_an_empty_folder(self):
        self.assert_refused("is empty: it has no student folders")

    def test_one_students_folder(self):
        self.write(os.path.join(self.submissions, "vector_add.cu"), "mine\n")
        self.assert_refused("holds vector_add.cu itself: that is one student's folder")

    def test_one_students_folder_with_a_near_name(self):
        self.write(os.path.join(self.submissions, "Vector_Add.cu"), "mine\n")
        self.assert_refused("holds Vector_Add.cu itself: that is one student's folder")

    def test_one_students_repository(self):
        self.write(os.path.join(self.submissions, IN_COURSE), "mine\n")
        self.assert_refused("that is one student's repository")

    def test_no_student_folders_names_what_is_there(self):
        self.write(os.path.join(self.submissions, "grades.xlsx"), "")
        self.assert_refused("has no student folders (it holds grades.xlsx)")

    def test_a_stray_copy_and_other_files_at_the_top_are_reported(self):
        self.submit("ada", "ada's")
        self.submit("grace", "grace's")
        self.write(os.path.join(self.submissions, "vector_add.cu"), "the instructor's\n")
        self.assertIn("is no student's: ignored", self.find().warnings[0])

    def test_a_single_submission_is_questioned(self):
        self.submit("ada", "ada's")
        self.assertIn("one submission only", self.find().warnings[0])


class NearNames(LayoutTestCase):
    def put(self, student, *names):
        for name in names:
            self.write(os.path.join(self.submissions, student, name), f"{student}'s {name}\n")

    def test_one_near_match_is_graded_with_a_note(self):
        self.put("case", "Vector_Add.cu")
        self.put("copy", "vector_add (1).cu")
        self.put("both", "Vector_add (2).cu")
        self.put("canvas", "vector_add-1.cu")
        self.put("deeper", os.path.join("lab1", "vector_add.cu"), "README.md")
        rows = self.by_name()
        self.assertIn("graded Vector_Add.cu as vector_add.cu: the name differs only in case", rows["case"].note)
        self.assertIn("' (1)' added (a copy's suffix)", rows["copy"].note)
        self.assertIn("' (2)' added (a copy's suffix), and the case differs", rows["both"].note)
        self.assertIn("'-1' added", rows["canvas"].note)
        self.assertIn(f"graded {os.path.join('lab1', 'vector_add.cu')}, not at the top", rows["deeper"].note)
        self.assertEqual(self.source_text(rows["case"]), "case's Vector_Add.cu\n")

    def test_the_exact_name_wins_and_the_others_are_named(self):
        self.put("ada", "vector_add.cu", "vector_add (1).cu")
        ada = self.by_name()["ada"]
        self.assertEqual(self.source_text(ada), "ada's vector_add.cu\n")
        self.assertEqual(ada.note, "also found vector_add (1).cu (not graded)")

    def test_two_candidates_make_an_ambiguous_row(self):
        self.put("ada", "Vector_Add.cu", "vector_add (1).cu")
        ada = self.by_name()["ada"]
        self.assertIsNone(ada.source)
        self.assertEqual(ada.problem[0], "ambiguous file")
        self.assertIn("2 files could be vector_add.cu: Vector_Add.cu, vector_add (1).cu", ada.problem[1])

    def test_unrelated_names_are_missing_with_what_the_folder_holds(self):
        self.put("ada", "vectoradd.cu", "main.cu")
        self.assertEqual(self.by_name()["ada"].problem, ("missing file", "no vector_add.cu in the student's folder "
                                                                         "(it holds main.cu, vectoradd.cu)"))

    def test_a_symbolic_link_out_of_the_students_folder_is_refused(self):
        secret = self.write(os.path.join(self.root, "secret", "answers.cu"), "the instructor's\n")
        os.makedirs(os.path.join(self.submissions, "mallory"))
        os.symlink(secret, os.path.join(self.submissions, "mallory", "vector_add.cu"))
        mallory = self.by_name()["mallory"]
        self.assertEqual(mallory.problem[0], "unreadable file")
        self.assertIn("symbolic link out of the student's files", mallory.problem[1])


class HostileZips(LayoutTestCase):
    def zip_row(self, members, name="mallory"):
        make_zip(os.path.join(self.submissions, f"{name}.zip"), members)
        self.submit("ada", "ada's")
        return self.by_name()[name]

    def test_a_member_that_leaves_the_zip_is_never_taken(self):
        for evil in ("../../vector_add.cu", "/etc/vector_add.cu", "C:/vector_add.cu"):
            with self.subTest(evil=evil):
                row = self.zip_row([(evil, "int x;\n")])
                self.assertEqual(row.problem[0], "unreadable file")
                self.assertIn("leaves the zip (a path traversal)", row.problem[1])

    def test_a_traversal_beside_the_real_file_is_noted_and_the_real_file_graded(self):
        row = self.zip_row([("vector_add.cu", "mine\n"), ("../vector_add.cu", "evil\n")])
        self.assertEqual(self.source_text(row), "mine\n")
        self.assertIn("leaves the zip", row.note)

    def test_a_symbolic_link_member_is_never_taken(self):
        link = zipfile.ZipInfo("vector_add.cu")
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        row = self.zip_row([(link, "/etc/shadow")])
        self.assertEqual(row.problem[0], "unreadable file")
        self.assertIn("is a symbolic link", row.problem[1])

    def test_an_encrypted_member_is_refused(self):
        path = make_zip(os.path.join(self.submissions, "mallory.zip"), [("vector_add.cu", "scrambled")])
        with open(path, "rb") as handle:
            data = bytearray(handle.read())
        for signature, flags_at in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):  # the entry's two headers
            data[data.index(signature) + flags_at] |= 0x1  # "encrypted"
        with open(path, "wb") as handle:
            handle.write(data)
        self.submit("ada", "ada's")
        self.assertIn("is encrypted", self.by_name()["mallory"].problem[1])

    def test_a_bomb_is_refused_by_its_size_and_never_read_past_the_cap(self):
        row = self.zip_row([("vector_add.cu", "\0" * (layouts.MAX_SOURCE_BYTES + 1))])
        self.assertIn("more than a lab's file may be", row.problem[1])
        # What the zip says of its size is not trusted: the read itself stops at the cap.
        small = make_zip(os.path.join(self.root, "small.zip"), [("vector_add.cu", "x" * 5000)])
        saved, layouts.MAX_SOURCE_BYTES = layouts.MAX_SOURCE_BYTES, 100
        try:
            with self.assertRaises(layouts.SourceError):
                read_source(layouts.Submission("s", small, member="vector_add.cu"))
        finally:
            layouts.MAX_SOURCE_BYTES = saved

    def test_too_many_members_or_too_large_a_zip_is_not_opened(self):
        saved = layouts.MAX_ZIP_MEMBERS, layouts.MAX_ZIP_BYTES
        try:
            layouts.MAX_ZIP_MEMBERS = 3
            row = self.zip_row([(f"f{i}.txt", "") for i in range(4)] + [("vector_add.cu", "mine\n")])
            self.assertIn("more than the 3 members", row.problem[1])
            layouts.MAX_ZIP_MEMBERS, layouts.MAX_ZIP_BYTES = saved[0], 10
            self.assertIn("a submission's zip may be", self.zip_row([("vector_add.cu", "mine\n")]).problem[1])
        finally:
            layouts.MAX_ZIP_MEMBERS, layouts.MAX_ZIP_BYTES = saved

    def test_a_file_that_is_not_a_zip(self):
        self.write(os.path.join(self.submissions, "bob.zip"), "not a zip at all")
        self.submit("ada", "ada's")
        bob = self.by_name()["bob"]
        self.assertEqual(bob.problem[0], "unreadable file")
        self.assertIn("bob.zip is not a zip that can be read", bob.problem[1])

    def test_nothing_is_extracted(self):
        make_zip(os.path.join(self.submissions, "ada.zip"), [("vector_add.cu", "mine\n"), ("../../x.cu", "evil"),
                                                             ("other.cu", "other")])
        before = sorted(os.walk(self.root))
        for submission in self.find().submissions:
            read_source(submission)
        self.assertEqual(sorted(os.walk(self.root)), before)


class SameScoresInEveryLayout(GraderTestCase):
    """The same three files graded end to end in each layout give the same rows."""

    WORK = {"ada": "all fine", "grace": "FAKE_PASS_STEPS=2", "alan": "FAKE_RATIO=2.125"}

    def lay_out(self, layout):
        for student, text in self.WORK.items():
            text += "\n"
            if layout == "folders":
                self.submit(student, text)
            elif layout == "github":
                clone = os.path.join(self.submissions, f"lab1-{student}")
                self.write(os.path.join(clone, ".git", "HEAD"), "")
                self.write(os.path.join(clone, IN_COURSE), text)
            elif layout == "zips":
                make_zip(os.path.join(self.submissions, f"{student}.zip"), [(f"{student}/vector_add.cu", text)])
            elif layout == "canvas":
                user = 100 + len(student)
                self.write(os.path.join(self.submissions, f"{student}_{user}_9{user}_vector_add.cu"), text)
            elif layout == "gradescope":
                self.write(os.path.join(self.submissions, f"submission_{student}", "vector_add.cu"), text)
        if layout == "gradescope":
            self.write(os.path.join(self.submissions, "submission_metadata.yml"), "".join(
                f"submission_{s}:\n  :submitters:\n  - :name: {s}\n    :sid: '{len(s)}'\n    :email: {s}@example.edu\n"
                for s in self.WORK))

    def test_every_layout_grades_alike(self):
        expected = {"ada": ("graded", "100"), "grace": ("graded", "80"), "alan": ("graded", "90")}
        for layout in ("folders", "github", "zips", "canvas", "gradescope"):
            with self.subTest(layout=layout):
                self.tearDown()
                self.setUp()
                self.lay_out(layout)
                finished = self.grade()
                self.assertEqual(finished.returncode, 0, finished.stdout + finished.stderr)
                self.assertEqual({s: (r["status"], r["total"]) for s, r in self.gradebook().items()}, expected)
                with open(os.path.join(self.out, "run.json"), encoding="utf-8") as handle:
                    self.assertIn(json.load(handle)["layout"], finished.stdout)

    def test_exports_carry_the_ids_and_leave_rows_not_run_empty(self):
        self.lay_out("canvas")
        self.write(os.path.join(self.submissions, "linus_7_8_vector_add.cu"), "FAKE_COMPILE_ERROR\n")
        finished = self.grade(env={"FAKE_NO_GPU": "1"})
        self.assertEqual(finished.returncode, 1, finished.stdout + finished.stderr)
        with open(os.path.join(self.out, "export", "canvas.csv"), encoding="utf-8") as handle:
            canvas = list(csv.reader(handle))
        self.assertEqual(canvas[0], ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "lab1"])
        self.assertEqual(sorted(canvas[1:]), [["ada", "103", "", "", "", ""], ["alan", "104", "", "", "", ""],
                                              ["grace", "105", "", "", "", ""], ["linus", "7", "", "", "", "0"]])
        self.assertEqual(self.gradebook()["ada"]["id"], "103")


class Exports(unittest.TestCase):
    table = {"step1.correct": Rule("step1.correct", 60), "step1.speed": Rule("step1.speed", 40, 1.25, 3.0)}

    def row(self, status, checks, **identity):
        return reports.score(dict(identity, status=status, detail="", checks=checks), self.table)

    def rows(self):
        passed = [dict(id="step1.correct", verdict="pass", title="vector_add is correct"),
                  dict(id="step1.speed", verdict="pass", ratio=1.0, title="step1.speed")]
        return [self.row("graded", passed, student="Ada", student_id="1815", id_kind="Gradescope SID",
                         email="ada@example.edu"),
                self.row("not run: no GPU", [], student="Grace", student_id="1906", id_kind="Gradescope SID"),
                self.row("graded", passed[:1], student="One & Two", student_id="1;2", id_kind="Gradescope SID",
                         members=[dict(name="One", id="1", email="one@x"), dict(name="Two", id="2", email="two@x")])]

    def test_gradescope_csv(self):
        lines = list(csv.reader(io.StringIO(exports.gradescope_csv(self.rows(), self.table))))
        self.assertEqual(lines, [["Name", "SID", "Email", "Total Score", "step1.correct", "step1.speed"],
                                 ["Ada", "1815", "ada@example.edu", "100", "60", "40"],
                                 ["Grace", "1906", "", "", "", ""],
                                 ["One", "1", "one@x", "60", "60", "0"], ["Two", "2", "two@x", "60", "60", "0"]])

    def test_canvas_takes_only_canvas_ids_and_a_column_per_check_on_request(self):
        lines = list(csv.reader(io.StringIO(exports.canvas_csv("lab1", self.rows(), self.table, by_check=True))))
        self.assertEqual(lines[0][5:], ["lab1 step1.correct", "lab1 step1.speed"])
        self.assertEqual(lines[1], ["Ada", "", "", "", "", "60", "40"])  # a Gradescope SID is no Canvas id
        self.assertEqual(lines[2], ["Grace", "", "", "", "", "", ""])

    def test_gradescope_results_name_each_check_once(self):
        results = reports.gradescope_results(self.rows()[0], self.table, {})
        self.assertEqual([t["name"] for t in results["tests"]], ["step1.correct: vector_add is correct", "step1.speed"])
        self.assertEqual(reports.gradescope_test_name("step1.speed", "step1.speed: timed"), "step1.speed: timed")


class CompileLine(unittest.TestCase):
    def test_it_says_plainly_what_happened(self):
        self.assertEqual(compiled_summary(["compile error", "compile error", "missing file"]),
                         "none of the 3 is ready to run: 2 compile error, 1 missing file")
        self.assertEqual(compiled_summary(["compiled", "compiled"]), "all 2 compiled, ready to run")
        self.assertEqual(compiled_summary(["compiled", "forbidden API"]),
                         "1 of 2 compiled, ready to run; the others: 1 forbidden API")


if __name__ == "__main__":
    unittest.main()
