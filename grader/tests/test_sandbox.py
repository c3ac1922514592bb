"""run_limited: time limits, output caps, signals, and the whole process group."""
import os
import tempfile
import time
import unittest

import helpers  # noqa: F401
from memlab_grader.sandbox import run_limited


class Limits(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.log = os.path.join(self.folder.name, "log.txt")

    def tearDown(self):
        self.folder.cleanup()

    def run_shell(self, script, time_limit=5.0, output_limit=1000):
        return run_limited(["sh", "-c", script], log_path=self.log, time_limit=time_limit, output_limit=output_limit)

    def test_an_ordinary_run_keeps_its_output_and_exit_code(self):
        finished = self.run_shell("echo hello; echo oops >&2; exit 3")
        self.assertEqual((finished.exit_code, finished.timed_out, finished.output_exceeded), (3, False, False))
        self.assertEqual(open(self.log).read(), "hello\noops\n")

    def test_a_signal_is_named(self):
        finished = self.run_shell("kill -SEGV $$")
        self.assertIsNone(finished.exit_code)
        self.assertIn("SIGSEGV", finished.signal_name())

    def test_a_run_past_its_time_is_killed_with_its_children(self):
        marker = os.path.join(self.folder.name, "child-alive")
        started = time.monotonic()
        finished = self.run_shell(f"(sleep 2; touch {marker}) & sleep 30", time_limit=0.5)
        self.assertTrue(finished.timed_out)
        self.assertLess(time.monotonic() - started, 5)
        self.assertIsNone(finished.signal_number)  # killed by the limit, not crashed
        time.sleep(2.5)
        self.assertFalse(os.path.exists(marker), "a child of the program outlived it")

    def test_output_past_the_cap_stops_the_program(self):
        started = time.monotonic()
        finished = self.run_shell("yes spam", output_limit=10000)
        self.assertTrue(finished.output_exceeded)
        self.assertLess(time.monotonic() - started, 5)
        self.assertEqual(len(finished.output), 10000)
        self.assertIn("stopped after 10000 bytes", open(self.log).read())

    def test_a_child_holding_the_pipe_does_not_keep_the_grader_waiting(self):
        started = time.monotonic()
        finished = self.run_shell("sleep 30 & echo started", time_limit=10)
        self.assertEqual(finished.exit_code, 0)
        self.assertLess(time.monotonic() - started, 5)


if __name__ == "__main__":
    unittest.main()
