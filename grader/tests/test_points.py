"""Points tables: reading, overriding, partial credit, and the labs' own tables."""
import glob
import os
import re
import tempfile
import unittest

import helpers
from memlab_grader import points


def table_from(text):
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as handle:
        handle.write(text)
    try:
        return points.read_table(handle.name)
    finally:
        os.remove(handle.name)


class Tables(unittest.TestCase):
    def test_reads_plain_and_timed_checks(self):
        table = table_from("# comment\nstep1.correct 30\nstep1.speed 20 1.25 3  # timed\n")
        self.assertEqual(table["step1.correct"], points.Rule("step1.correct", 30))
        self.assertEqual(table["step1.speed"], points.Rule("step1.speed", 20, 1.25, 3.0))

    def test_refuses_mistakes_with_the_line(self):
        for text, message in [("speed 1\n", "not a check id"), ("step1.a 1 2\n", "write 'check points'"),
                              ("step1.a x\n", "must be numbers"), ("step1.a -1\n", "0 or more"),
                              ("step1.a 1 2 2\n", "full_at < zero_at"), ("step1.a 1\nstep1.a 2\n", "appears twice"),
                              ("# nothing\n", "no checks")]:
            with self.assertRaisesRegex(points.PointsError, message):
                table_from(text)

    def test_overrides_replace_named_checks_only(self):
        defaults = table_from("step1.correct 30\nstep1.speed 20 1.25 3\n")
        merged = points.with_overrides(defaults, table_from("step1.speed 10 1.1 2\n"), "mine")
        self.assertEqual(merged["step1.correct"].points, 30)
        self.assertEqual(merged["step1.speed"], points.Rule("step1.speed", 10, 1.1, 2.0))
        with self.assertRaisesRegex(points.PointsError, "no such check in this lab: step2.x"):
            points.with_overrides(defaults, table_from("step2.x 1\n"), "mine")

    def test_partial_credit_falls_linearly_between_full_and_zero(self):
        rule = points.Rule("step1.speed", 20, 1.25, 3.0)
        for ratio, expected in [(0.9, 20), (1.25, 20), (2.125, 10), (3.0, 0), (7.0, 0)]:
            self.assertEqual(points.earned(rule, {"verdict": "fail", "ratio": ratio}), expected, ratio)
        self.assertEqual(points.earned(rule, {"verdict": "blocked", "ratio": None}), 0)
        self.assertEqual(points.earned(rule, None), 0)

    def test_plain_checks_earn_their_points_only_when_they_pass(self):
        rule = points.Rule("step1.correct", 30)
        self.assertEqual(points.earned(rule, {"verdict": "pass"}), 30)
        self.assertEqual(points.earned(rule, {"verdict": "fail"}), 0)

    def test_each_labs_table_gives_100_points_to_exactly_its_checks(self):
        for path in sorted(glob.glob(os.path.join(helpers.GRADER, "points", "lab*.txt"))):
            lab = os.path.basename(path)[:-4]
            grader = glob.glob(os.path.join(helpers.SOURCE_DIR, "labs", f"{lab}_*", "grading", "grader.cpp"))[0]
            with open(grader, encoding="utf-8") as handle:
                ids = []
                for tags in re.findall(r'TEST_CASE\("[^"]*",\s*"((?:\[[^\]]+\])+)"\)', handle.read()):
                    names = [t for t in re.findall(r"\[([^\]]+)\]", tags) if t not in ("timing", "buggy_kernels")]
                    step = next(t for t in names if re.match(r"step\d+$", t))
                    ids.append(f"{step}.{next(t for t in names if t != step)}")
            table = points.read_table(path)
            points.check_covers(table, ids, path)
            self.assertEqual(points.total(table), 100, path)
            timed = {check for check, rule in table.items() if rule.timed}
            self.assertEqual(timed, {i for i in ids if "speed" in i}, path)


if __name__ == "__main__":
    unittest.main()
