"""Shared by the grader's host tests: a grading kit of stand-ins (fake_nvcc.py
compiles, fake_lab_grader.py grades, fake_runner.sh loads the build),
submissions, and running grade.py."""
import functools
import json
import os
import subprocess
import sys
import tempfile
import unittest
import zipfile

TESTS = os.path.dirname(os.path.abspath(__file__))
GRADER = os.path.dirname(TESTS)
SOURCE_DIR = os.path.dirname(GRADER)
STANDINS = os.path.join(TESTS, "standins")
sys.path.insert(0, GRADER)

from memlab_grader.sandbox import bwrap_words, find_bwrap, probe  # noqa: E402


@functools.lru_cache(maxsize=None)
def why_no_sandbox():
    """Why bubblewrap cannot sandbox a program here (None when it can): tests of
    the sandbox skip with this, and grading runs here pass --no-sandbox."""
    bwrap = find_bwrap(SOURCE_DIR)
    if bwrap is None:
        return "bubblewrap (bwrap) is not installed (apt-get install bubblewrap)"
    why = probe(bwrap_words(bwrap, hide=[], expose=[]))
    return f"bwrap cannot create its namespaces here: {why}" if why else None


class GraderTestCase(unittest.TestCase):
    """A temporary folder with a stand-in kit, and helpers to grade in it."""

    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.root = self.folder.name
        self.submissions = os.path.join(self.root, "submissions")
        os.makedirs(self.submissions)
        self.out = os.path.join(self.root, "out")
        reference = self.write(os.path.join(self.root, "kit", "reference.cu"), "the reference\n")
        table = self.write(os.path.join(self.root, "kit", "table.o"), "")
        self.kit = self.write(os.path.join(self.root, "kit", "kit.json"), json.dumps(dict(
            lab="lab1", version="test", source_dir=SOURCE_DIR, lab_dir=os.path.join(SOURCE_DIR, "labs", "lab1_caching"),
            skeleton="vector_add.cu", reference_source=reference, grader=os.path.join(STANDINS, "fake_lab_grader.py"),
            runner=os.path.join(STANDINS, "fake_runner.sh"),
            reference=reference, table_objects=[table], compiler=os.path.join(STANDINS, "fake_nvcc.py"),
            compile_flags=[], architectures="90", include_dirs=[], link_flags=[], forbid=["cublas", "thrust", "cub"],
            points=os.path.join(STANDINS, "points.txt"), cuobjdump=os.path.join(STANDINS, "fake_cuobjdump.sh"))))

    def tearDown(self):
        self.folder.cleanup()

    @staticmethod
    def write(path, text):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
        return path

    def submit(self, student, text):
        return self.write(os.path.join(self.submissions, student, "vector_add.cu"), text + "\n")

    def grade_command(self, *extra):
        # Where bwrap cannot run, grading runs without it; tests of the sandbox itself skip.
        unconfined = ["--no-sandbox"] if why_no_sandbox() and "--no-sandbox" not in extra else []
        return [sys.executable, os.path.join(GRADER, "grade.py"), "--lab", "1", "--submissions", self.submissions,
                "--out", self.out, "--kit", self.kit, "--jobs", "2", *unconfined, *extra]

    def grade(self, *extra, env=None):
        return subprocess.run(self.grade_command(*extra), capture_output=True, text=True,
                              env=dict(os.environ, **(env or {})), timeout=300)

    def students_staged(self, stages):
        """The students whose builds the stand-in grader ran, from the stage folders it
        logged ("kit", the calibration, is left out): a stage is named by a hash."""
        from memlab_grader.grading import Layout
        from memlab_grader.layouts import row_folder
        layout = Layout(self.out)
        by_stage = {os.path.basename(layout.stage_dir(row_folder(name))): name for name in os.listdir(self.submissions)}
        return [by_stage.get(stage, stage) for stage in stages if stage != "kit"]

    def gradebook(self):
        import csv
        with open(os.path.join(self.out, "gradebook.csv"), encoding="utf-8") as handle:
            return {row["student"]: row for row in csv.DictReader(handle)}

    def read_out(self, name):
        """The text of OUT/@p name (run.json, summary.md, a Slurm script)."""
        with open(os.path.join(self.out, name), encoding="utf-8") as handle:
            return handle.read()

    def outcome(self, student):
        """The stored outcome of @p student, whose folder name is its row folder."""
        with open(os.path.join(self.out, "students", student, "outcome.json"), encoding="utf-8") as handle:
            return json.load(handle)


# The lab 1 file the layout tests look for, and where a student's clone holds it.
WANTED, IN_COURSE = "vector_add.cu", os.path.join("labs", "lab1_caching", "vector_add.cu")


def make_zip(path, members):
    """A zip of (name, text) members; a name may be a ZipInfo, for odd flags."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in members:
            archive.writestr(name, text)
    return path
