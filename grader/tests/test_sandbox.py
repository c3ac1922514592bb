"""run_limited: time limits, output caps, signals, and the whole process
group; the runners' bubblewrap sandbox: its options, and what a program in it
can and cannot do."""
import os
import shutil
import socket
import subprocess
import tempfile
import time
import unittest

import helpers
from memlab_grader.sandbox import (CompileSandbox, RunnerSandbox, bwrap_can_disable_userns, bwrap_words, find_bwrap,
                                   gpu_devices, run_limited)


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


class SandboxOptions(unittest.TestCase):
    """The word list, without running it."""

    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.root = os.path.realpath(self.folder.name)
        self.course = os.path.join(self.root, "course")
        self.out = os.path.join(self.course, "grades")  # OUT inside the course: one tmpfs hides both
        self.submissions = os.path.join(self.root, "submissions")
        self.runner = os.path.join(self.out, ".work", "kit", "lab1_runner")
        for folder in (self.submissions, os.path.dirname(self.runner)):
            os.makedirs(folder)
        open(self.runner, "w").close()

    def tearDown(self):
        self.folder.cleanup()

    def words(self, **more):
        return bwrap_words("/usr/bin/bwrap", hide=[self.course, self.out, self.submissions, "/no/such/folder"],
                           expose=[self.runner], devices=["/dev/nvidia0", "/dev/nvidiactl", "/dev/nvidia-caps"],
                           cgroups=["/sys/fs/cgroup"], disable_userns=True, **more)

    def pairs(self, words, option):
        return [words[i + 1] for i, word in enumerate(words) if word == option]

    def test_isolates_everything_but_the_gpu(self):
        words = self.words()
        self.assertEqual(words[0], "/usr/bin/bwrap")
        for option in ("--die-with-parent", "--new-session", "--unshare-pid", "--unshare-net", "--unshare-ipc",
                       "--unshare-uts", "--unshare-cgroup-try", "--unshare-user", "--disable-userns"):
            self.assertIn(option, words)
        self.assertEqual(self.pairs(words, "--uid") + self.pairs(words, "--gid"), ["65534", "65534"])
        self.assertEqual(self.pairs(words, "--dev-bind"), ["/dev/nvidia0", "/dev/nvidiactl", "/dev/nvidia-caps"])
        self.assertEqual(words[-2:], ["--chdir", "/tmp"])

    def test_a_worker_sees_its_own_gpu_alone(self):
        # A server of three GPUs: the worker given GPU-b (minor 2) gets /dev/nvidia2 and the
        # shared nodes, never another GPU's node; a UUID the driver does not list stops the sandbox.
        dev, driver = os.path.join(self.folder.name, "dev"), os.path.join(self.folder.name, "driver")
        os.makedirs(os.path.join(dev, "nvidia-caps"))
        for node in ("nvidia0", "nvidia1", "nvidia2", "nvidiactl", "nvidia-uvm", "nvidia-uvm-tools"):
            open(os.path.join(dev, node), "w").close()
        for bus, uuid, minor in (("0000:1a:00.0", "GPU-a", 0), ("0000:3b:00.0", "GPU-b", 2), ("0000:5c:00.0", "GPU-c", 1)):
            os.makedirs(os.path.join(driver, "gpus", bus))
            with open(os.path.join(driver, "gpus", bus, "information"), "w") as info:
                info.write(f"Model: \t\t NVIDIA H200\nIRQ:   \t\t 42\nGPU UUID: \t\t {uuid}\n"
                           f"Video BIOS: \t\t 96.00\nBus Type: \t\t PCIe\nDevice Minor: \t\t {minor}\n")
        seen = [os.path.relpath(node, dev) for node in gpu_devices("GPU-b", dev=dev, driver=driver)]
        self.assertEqual(seen, ["nvidia-caps", "nvidia-uvm", "nvidia-uvm-tools", "nvidia2", "nvidiactl"])
        self.assertEqual(len(gpu_devices("", dev=dev, driver=driver)), 7)  # one GPU's grading: every node
        with self.assertRaisesRegex(ValueError, "GPU-z"):
            gpu_devices("GPU-z", dev=dev, driver=driver)
        self.assertEqual(len(gpu_devices("GPU-b", dev=dev, driver=os.path.join(driver, "none"))), 7)  # no driver

    def test_hides_each_folder_once_and_shows_the_runner_again_after(self):
        words = self.words()
        # /tmp of its own; the course (and OUT inside it) and the submissions hidden; a folder
        # that does not exist is not named (bwrap would create it).
        self.assertEqual(self.pairs(words, "--tmpfs"), ["/tmp", "/run", "/sys/fs/cgroup"] + (
            [] if self.root.startswith("/tmp/") else [self.course, self.submissions]))
        bind = words.index("--ro-bind", words.index("--ro-bind") + 1)  # the first after "/ /"
        self.assertEqual(words[bind:bind + 3], ["--ro-bind", self.runner, self.runner])
        self.assertGreater(bind, max(i for i, word in enumerate(words) if word == "--tmpfs"))

    def test_each_student_sees_only_their_own_build(self):
        sandbox = RunnerSandbox("/usr/bin/bwrap", hide=[self.out], expose=[self.runner])
        words = sandbox.words(os.path.join(self.out, "alice.so"))
        self.assertEqual(self.pairs(words, "--ro-bind"), ["/", self.runner, os.path.join(self.out, "alice.so")])
        self.assertEqual(self.pairs(sandbox.words(None), "--ro-bind"), ["/", self.runner])

    def test_compute_sanitizer_keeps_the_network_namespace(self):
        self.assertNotIn("--unshare-net", self.words(share_network=True))

    def test_a_path_with_a_line_break_is_refused(self):
        with self.assertRaisesRegex(ValueError, "line break"):
            bwrap_words("/usr/bin/bwrap", hide=[], expose=["/tmp/two\nlines"])


class Sandboxed(unittest.TestCase):
    """Stand-in programs in the sandbox the grader builds for a student's runner.
    Skipped where bwrap cannot create its namespaces (a container that forbids
    user namespaces, say): grade.py then stops, unless given --no-sandbox."""

    def setUp(self):
        why = helpers.why_no_sandbox()
        if why:
            self.skipTest(why)
        # Not under /tmp, which the sandbox replaces whatever it hides.
        self.folder = tempfile.TemporaryDirectory(dir="/var/tmp" if os.access("/var/tmp", os.W_OK) else helpers.TESTS,
                                                  prefix=".memlab-sandbox-")
        root = os.path.realpath(self.folder.name)
        self.course = helpers.SOURCE_DIR
        self.out = os.path.join(root, "out")
        self.submissions = os.path.join(root, "submissions")
        self.build = helpers.GraderTestCase.write(os.path.join(self.out, ".work", "stage", "alice", "lib.so"), "built")
        self.answer = helpers.GraderTestCase.write(os.path.join(self.submissions, "alice", "vector_add.cu"), "secret")
        self.sandbox = RunnerSandbox(find_bwrap(helpers.SOURCE_DIR), hide=[self.course, self.out, self.submissions],
                                     expose=[])

    def tearDown(self):
        self.folder.cleanup()

    def run_inside(self, script, **more):
        return subprocess.run(self.sandbox.words(self.build) + ["/bin/sh", "-c", script], capture_output=True,
                              text=True, timeout=60, **more)

    def test_what_a_student_starts_ends_with_the_sandbox(self):
        # setsid leaves the process group, so killing the group would miss it; the PID namespace does not.
        tag = f"{time.monotonic_ns() % 10 ** 6}.5"
        finished = self.run_inside(f"setsid sleep {tag} & sleep 0.3; echo started")
        self.assertEqual(finished.stdout.strip(), "started", finished.stderr)
        deadline = time.monotonic() + 5
        while self.sleepers(tag) and time.monotonic() < deadline:
            time.sleep(0.1)
        self.assertEqual(self.sleepers(tag), [], "a process started in the sandbox outlived it")

    @staticmethod
    def sleepers(tag):
        found = []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as handle:
                    if handle.read().split(b"\0")[:2] == [b"sleep", tag.encode()]:
                        found.append(int(pid))
            except OSError:
                pass
        return found

    def test_writes_to_out_and_the_course_do_not_reach_them(self):
        target = os.path.join(self.out, "students", "alice", "outcome.json")
        in_course = os.path.join(self.course, "grader", "points", "lab1.txt")
        before = self.read(in_course)
        finished = self.run_inside(
            f"mkdir -p {os.path.dirname(target)} && echo '{{\"status\": \"graded\"}}' > {target}; "
            f"echo 'step1.correct 1000' > {in_course}; echo forged > {self.build}; true")
        self.assertEqual(finished.returncode, 0, finished.stderr)
        self.assertFalse(os.path.exists(target))
        self.assertEqual(self.read(in_course), before)
        self.assertEqual(self.read(self.build), "built")  # its own build is shown read-only

    @staticmethod
    def read(path):
        with open(path, encoding="utf-8") as handle:
            return handle.read()

    def test_the_submissions_and_the_course_cannot_be_read(self):
        finished = self.run_inside(f"ls -A {self.submissions}; echo ---; ls -A {self.course}; echo ---; "
                                   f"cat {self.answer} {self.course}/grader/points/lab1.txt")
        submissions, course, files = finished.stdout.split("---\n")
        self.assertEqual(submissions, "")
        # Empty, but for the way to the student's build where OUT is inside the course.
        self.assertEqual(course, "" if not self.out.startswith(self.course + os.sep) else "grader\n")
        self.assertEqual(files, "")
        # Both files missing; where the course itself lies under /tmp (a clone there), the
        # sandbox's private /tmp hides it whole, and listing it fails too.
        missing = 3 if os.path.realpath(self.course).startswith("/tmp" + os.sep) else 2
        self.assertEqual(finished.stderr.count("No such file"), missing, finished.stderr)

    def test_a_compile_reads_the_labs_headers_and_writes_its_stage_alone(self):
        # An assembler's .incbin reads any path the compiler can (red team 12): the course's
        # solutions and other students' files must not be among them.
        header = os.path.join(self.course, "labs", "lab1_caching", "lab1.cuh")
        solution = os.path.join(self.course, "solutions", "lab1_caching", "vector_add.cu")
        stage = os.path.dirname(self.build)
        compile_sandbox = CompileSandbox(find_bwrap(helpers.SOURCE_DIR), hide=[self.course, self.out, self.submissions],
                                         expose=[os.path.dirname(header)])
        elsewhere = os.path.join(self.out, "students", "alice", "outcome.json")
        finished = subprocess.run(
            compile_sandbox.words(stage) + ["/bin/sh", "-c", f"pwd; head -c 12 {header}; echo; cat {solution} {self.answer}; "
                                            f"echo built > lib2.so; mkdir -p {os.path.dirname(elsewhere)} && "
                                            f"echo forged > {elsewhere}; ls /dev | grep -c nvidia; true"],
            capture_output=True, text=True, timeout=60)
        lines = finished.stdout.splitlines()
        self.assertEqual(lines[:2], [os.path.realpath(stage), "/// @file la"], finished.stderr)
        self.assertEqual(finished.stderr.count("No such file"), 2, finished.stderr)  # the solution, the answer
        self.assertEqual(lines[-1], "0")  # no GPU device
        self.assertEqual(self.read(os.path.join(stage, "lib2.so")), "built\n")
        self.assertFalse(os.path.exists(elsewhere))

    def test_no_cgroup_can_be_seen_or_mounted_again(self):
        # Round 5 of the red team: a runner that can name a cgroup folder can have a child
        # born there (clone3's CLONE_INTO_CGROUP), outside the cgroup the grader freezes; in a
        # user namespace of its own it can mount the cgroup file system again.
        finished = self.run_inside("ls -A /sys/fs/cgroup; echo ---; "
                                   "unshare --user --mount true 2>/dev/null && echo nested || echo refused")
        listing, nested = finished.stdout.split("---\n")
        self.assertEqual(listing, "", finished.stderr)
        expected = "refused" if bwrap_can_disable_userns(self.sandbox.bwrap) else "nested"
        self.assertEqual(nested.strip(), expected, finished.stderr)

    def test_tmp_is_private_and_writable(self):
        with tempfile.NamedTemporaryFile(prefix="memlab-outside-") as outside:
            inside = f"/tmp/memlab-inside-{os.getpid()}"
            finished = self.run_inside(f"test ! -e {outside.name} && echo hello > {inside} && cat {inside}")
            self.assertEqual(finished.stdout, "hello\n", finished.stderr)
            self.assertFalse(os.path.exists(inside))

    def test_no_socket_under_run_can_be_reached(self):
        # The user's systemd manager and D-Bus listen under /run: either starts commands
        # outside the sandbox. A listening socket made here is not there inside.
        folder = tempfile.mkdtemp(prefix="memlab-socket-", dir="/run") if os.access("/run", os.W_OK) else None
        if folder is None:
            self.skipTest("/run is not writable here")
        path = os.path.join(folder, "bus")
        listener = socket.socket(socket.AF_UNIX)
        try:
            listener.bind(path)
            listener.listen()
            finished = self.run_inside(f"test -S {path} && echo reachable || echo gone; ls -A /run | wc -l")
            self.assertEqual(finished.stdout.split(), ["gone", "0"], finished.stderr)
        finally:
            listener.close()
            shutil.rmtree(folder, ignore_errors=True)

    def test_the_socket_on_fd_3_stays_usable_inside(self):
        ours, theirs = socket.socketpair()
        with ours, theirs:
            # As the lab grader starts a runner: the socket moved to fd 3, then the sandbox's words.
            command = ["/bin/sh", "-c", f'exec 3>&{theirs.fileno()} {theirs.fileno()}>&-; exec "$@"', "sh"]
            command += self.sandbox.words(self.build) + ["/bin/sh", "-c", "read line <&3; echo \"got $line\" >&3"]
            process = subprocess.Popen(command, pass_fds=(theirs.fileno(),), stderr=subprocess.PIPE)
            theirs.close()
            ours.sendall(b"ping\n")
            ours.settimeout(30)
            reply = ours.makefile().readline()
            complaint = process.communicate(timeout=30)[1]
        self.assertEqual(reply, "got ping\n", complaint)

    def test_no_network(self):
        finished = self.run_inside("cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d ' '")
        self.assertEqual(finished.stdout.split(), ["lo"], finished.stderr)


if __name__ == "__main__":
    unittest.main()
