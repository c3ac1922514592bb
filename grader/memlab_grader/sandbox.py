"""Running an untrusted program: a time limit, a cap on its output, no core
files; and the bubblewrap sandbox that a lab grader starts the student's
runner under.

The program runs in a session (process group) of its own, so everything it
starts is killed with it; its output is read as it comes and the program is
killed once it passes the cap, so a student's endless printing fills neither
the disk nor the grader's memory.
"""
from __future__ import annotations

import functools
import glob
import os
import re
import resource
import selectors
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from typing import Iterable, List, Optional, Sequence, Tuple


@dataclass
class Finished:
    """How a limited program ended."""

    exit_code: Optional[int]  # None when a signal ended it
    signal_number: Optional[int]
    timed_out: bool
    output_exceeded: bool
    seconds: float
    output: bytes  # at most the cap

    def signal_name(self) -> str:
        """'SIGSEGV (Segmentation fault)' for the signal that ended the program."""
        if self.signal_number is None:
            return ""
        try:
            number = signal.Signals(self.signal_number)
            return f"{number.name} ({signal.strsignal(number)})"
        except ValueError:
            return f"signal {self.signal_number}"

    def text(self) -> str:
        return self.output.decode("utf-8", errors="replace")


def _without_core_files() -> None:
    """No core files from a crashing submission. Set in this process and
    inherited, since a preexec_fn is unsafe while compiles run in threads."""
    soft, hard = resource.getrlimit(resource.RLIMIT_CORE)
    if soft != 0:
        resource.setrlimit(resource.RLIMIT_CORE, (0, hard))


# Programs running now, so that an interrupted grader can stop them all.
_running: set = set()


def kill_all() -> None:
    """Kills every limited program still running (on Ctrl-C or SIGTERM)."""
    for process in list(_running):
        _kill_group(process)


def _kill_group(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _wait_group_gone(process: subprocess.Popen, seconds: float = 2.0) -> None:
    """Waits (at most @p seconds) until no process of @p process's group is left. A killed
    member holds what it inherited, OUT's lock among it, until it has exited: a --resume
    right after a Ctrl-C found OUT still locked (CI, session 17)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.killpg(process.pid, 0)
        except (ProcessLookupError, PermissionError):
            return
        time.sleep(0.01)


def _read(fd: int) -> Optional[bytes]:
    """Up to 64 KiB from a non-blocking pipe: b"" at its end, None if nothing is there yet."""
    try:
        return os.read(fd, 65536)
    except BlockingIOError:
        return None


def run_limited(command: Sequence[str], *, log_path: str, time_limit: float, output_limit: int,
                cwd: Optional[str] = None, env: Optional[dict] = None, pass_fds: Sequence[int] = ()) -> Finished:
    """Runs @p command with stdout and stderr together into @p log_path (the
    first @p output_limit bytes), killed after @p time_limit seconds or once it
    has printed more than @p output_limit bytes. @p pass_fds: descriptors it
    inherits (OUT's lock, for a lab grader)."""
    _without_core_files()
    started = time.monotonic()
    deadline = started + time_limit
    process = subprocess.Popen(list(command), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               stdin=subprocess.DEVNULL, cwd=cwd, env=env, start_new_session=True,
                               pass_fds=tuple(pass_fds))
    _running.add(process)
    try:
        kept, timed_out, exceeded = _follow(process, deadline, output_limit)
    finally:
        _kill_group(process)  # a stopped or leftover process of the group, or all of it on an interrupt
        process.wait()
        _wait_group_gone(process)
        process.stdout.close()
        _running.discard(process)
    seconds = time.monotonic() - started
    note = b""
    if exceeded:
        note = f"\n[memlab grader: stopped after {output_limit} bytes of output]\n".encode()
    elif timed_out:
        note = f"\n[memlab grader: stopped after {time_limit:.0f} s]\n".encode()
    with open(log_path, "wb") as log:
        log.write(kept + note)
    code = process.returncode
    killed_by_us = timed_out or exceeded
    return Finished(
        exit_code=None if code < 0 else code,
        signal_number=-code if code < 0 and not killed_by_us else None,
        timed_out=timed_out,
        output_exceeded=exceeded,
        seconds=seconds,
        output=kept,
    )


def _follow(process: subprocess.Popen, deadline: float, output_limit: int) -> Tuple[bytes, bool, bool]:
    """Reads the program's output until it ends, its time is up, or it passes
    the cap: (the output kept, timed out, cap passed)."""
    kept = bytearray()
    timed_out = exceeded = False
    fd = process.stdout.fileno()
    os.set_blocking(fd, False)

    def take(chunk: bytes) -> bool:
        """Keeps what fits under the cap; False once the cap is passed."""
        room = output_limit - len(kept)
        kept.extend(chunk[: max(room, 0)])
        return len(chunk) <= room

    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        pipe_open = True
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                timed_out = process.poll() is None
                break
            if pipe_open and selector.select(timeout=min(remaining, 0.1)):
                chunk = _read(fd)
                if chunk:
                    if not take(chunk):
                        exceeded = True
                        break
                    continue
                if chunk == b"":  # every writer has closed the pipe
                    selector.unregister(fd)
                    pipe_open = False
            if process.poll() is not None:
                # Ended: take what is still in the pipe, but do not wait for a
                # child it left behind holding the pipe open.
                while pipe_open and (chunk := _read(fd)):
                    if not take(chunk):
                        exceeded = True
                        break
                break
            if not pipe_open:
                time.sleep(0.05)
    return bytes(kept), timed_out, exceeded


# ---- the runner's sandbox ----------------------------------------------------

# Its own process, IPC, host-name and cgroup namespaces, and an unprivileged
# user in a user namespace: it sees and signals no process outside, every
# process it starts dies with it, and its own cgroup is the root of the only
# cgroups it can see. (The network's namespace is added by bwrap_words.)
_NAMESPACES = ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try", "--unshare-user",
               "--uid", "65534", "--gid", "65534"]


def find_bwrap(source_dir: str) -> Optional[str]:
    """bubblewrap on PATH, else the copy scripts/carry-deps.sh puts in <repository>/.deps/bin."""
    carried = os.path.join(source_dir, ".deps", "bin", "bwrap")
    return shutil.which("bwrap") or (carried if os.access(carried, os.X_OK) else None)


def gpu_devices(only_gpu: Optional[str] = None, dev: str = "/dev", driver: str = "/proc/driver/nvidia") -> List[str]:
    """The NVIDIA device nodes a CUDA program opens (/dev/nvidia-caps among them, for MIG).

    With @p only_gpu (a GPU's UUID, as each worker of --gpus is given it in
    CUDA_VISIBLE_DEVICES), the numbered nodes of every other GPU are left out:
    a student's code could otherwise undo CUDA_VISIBLE_DEVICES and keep another
    worker's GPU busy while that worker times someone else (red team 9's
    review of --gpus). The driver's information files say which node is which
    GPU; where none names @p only_gpu, ValueError (the sandbox cannot start)."""
    nodes = sorted(path for path in glob.glob(os.path.join(dev, "nvidia*")) if os.path.exists(path))
    if not only_gpu or not only_gpu.startswith(("GPU-", "MIG-")) or not os.path.isdir(os.path.join(driver, "gpus")):
        return nodes  # one GPU's grading, or no driver here (so no GPU to keep apart)
    minor = None
    for information in glob.glob(os.path.join(driver, "gpus", "*", "information")):
        try:
            with open(information, encoding="utf-8", errors="replace") as handle:
                text = handle.read()
        except OSError:
            continue
        found = re.search(r"^Device Minor:\s*(\d+)", text, re.M)
        if found and re.search(rf"^GPU UUID:\s*{re.escape(only_gpu.split('/')[0])}\s*$", text, re.M):
            minor = found.group(1)
    if minor is None:
        raise ValueError(f"no GPU of the driver's list ({driver}/gpus) has the UUID {only_gpu}: the sandbox "
                           "cannot give the student's code that GPU alone")
    numbered = re.compile(re.escape(os.path.join(dev, "nvidia")) + r"\d+")
    return [node for node in nodes if not numbered.fullmatch(node) or node == os.path.join(dev, f"nvidia{minor}")]


def _outermost(folders: Iterable[str]) -> List[str]:
    """@p folders without those inside another: a tmpfs already hides what lies beneath it."""
    kept: List[str] = []
    for folder in sorted(set(folders), key=len):
        if not any(folder == outer or folder.startswith(outer.rstrip(os.sep) + os.sep) for outer in kept):
            kept.append(folder)
    return kept


def cgroup_mounts() -> List[str]:
    """Where this machine mounts cgroup file systems (v1 or v2), and the usual
    folder above them: the sandbox covers them, so that a runner sees no cgroup
    but its own namespace's and can name none to be born in (clone3's
    CLONE_INTO_CGROUP takes a folder of it; red team round 5)."""
    found = ["/sys/fs/cgroup"] if os.path.isdir("/sys/fs/cgroup") else []
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as mounts:
            for line in mounts:
                fields, _, rest = line.partition(" - ")
                if rest.split(" ", 1)[0] in ("cgroup", "cgroup2"):
                    found.append(fields.split(" ")[4].replace("\\040", " "))
    except OSError:
        pass
    return _outermost(found)


@functools.lru_cache(maxsize=None)
def bwrap_can_disable_userns(bwrap: str) -> bool:
    """bubblewrap 0.8 or later can forbid the sandbox to make user namespaces of its own."""
    try:
        shown = subprocess.run([bwrap, "--help"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return "--disable-userns" in shown.stdout + shown.stderr


def bwrap_words(bwrap: str, *, hide: Sequence[str], expose: Sequence[str], share_network: bool = False,
                devices: Optional[Sequence[str]] = None, cgroups: Optional[Sequence[str]] = None,
                disable_userns: Optional[bool] = None, writable: Sequence[str] = (), chdir: str = "/tmp") -> List[str]:
    """The command a student's runner is started under: @p bwrap and its
    options, the runner's own command to follow.

    The whole file system is seen read-only, with a private /tmp and /proc,
    and a /dev with only the GPU's devices added. Each existing folder of
    @p hide (the course, OUT, the submissions, home folders) is covered by an
    empty tmpfs, and then the files of @p expose (the runner and the student's
    build, which live in OUT) are bound back read-only; bwrap takes a bind's
    source from the file system outside, so a hidden file can be shown again.
    @p share_network keeps the network namespace: compute-sanitizer cannot
    follow a program into a new one (it hangs). The cgroup file systems
    (@p cgroups, by default cgroup_mounts()) are covered too, and where bwrap
    can (@p disable_userns, by default whether it can), the runner may make no
    user namespace of its own, in which it could mount one again. The folders
    of @p writable are bound back writable, and the command starts in @p chdir."""
    words = [bwrap, "--die-with-parent", "--new-session"] + _NAMESPACES
    if bwrap_can_disable_userns(bwrap) if disable_userns is None else disable_userns:
        words.append("--disable-userns")
    if not share_network:
        words.append("--unshare-net")
    words += ["--ro-bind", "/", "/", "--dev", "/dev"]
    if devices is None:  # this process's GPU (a worker of --gpus has one), else every GPU
        devices = gpu_devices(os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",")[0].strip())
    for device in devices:
        words += ["--dev-bind", device, device]
    # /run holds other programs' sockets, which a new network namespace does not
    # hide (a path socket is a file): the user's systemd manager and D-Bus among
    # them, either of which starts any command outside the sandbox (red team 10).
    words += ["--proc", "/proc", "--tmpfs", "/tmp", "--tmpfs", "/run"]
    for folder in cgroup_mounts() if cgroups is None else cgroups:
        words += ["--tmpfs", folder]
    hidden = _outermost(["/tmp", "/run"] + [os.path.realpath(f) for f in hide if os.path.isdir(f)])
    words += [word for folder in hidden if folder not in ("/tmp", "/run") for word in ("--tmpfs", folder)]
    for path in expose:
        real = os.path.realpath(path)
        words += ["--ro-bind", real, real]
    for path in writable:
        real = os.path.realpath(path)
        words += ["--bind", real, real]
    words += ["--chdir", chdir]
    if any("\n" in word for word in words):
        raise ValueError("a path of the sandbox holds a line break, and the lab grader reads one word per line")
    return words


@dataclass
class RunnerSandbox:
    """What every student's runner of a grading run is confined by; each
    runner sees its own build besides (the reference's runner is not
    sandboxed, and its build stays hidden from the student's)."""

    bwrap: str
    hide: List[str]    # folders covered by an empty tmpfs
    expose: List[str]  # files and folders bound back read-only: the runner, a toolkit in a hidden folder

    def words(self, library: Optional[str], sanitizer: bool = False) -> List[str]:
        """The sandbox of the runner that loads @p library (None: the part common to all)."""
        return bwrap_words(self.bwrap, hide=self.hide, expose=self.expose + ([library] if library else []),
                           share_network=sanitizer)


@dataclass
class CompileSandbox:
    """What every submission's compile is confined by. The compiler reads
    files the preprocessor never lists (an assembler's `.incbin` takes any
    path, red team 12), so it sees the course, OUT and the submissions only
    where it needs them: the toolkit, the lab's headers and its table, read-only,
    and the submission's own stage folder, where it writes. No GPU, no network."""

    bwrap: str
    hide: List[str]    # folders covered by an empty tmpfs: the course, OUT, the submissions
    expose: List[str]  # bound back read-only: the toolkit, the kit's include folders and table objects

    def words(self, stage: Optional[str]) -> List[str]:
        """The sandbox of the compile that writes in @p stage (None: the part common to all)."""
        return bwrap_words(self.bwrap, hide=self.hide, expose=self.expose, devices=[],
                           writable=[stage] if stage else [], chdir=stage or "/tmp")


def write_words(path: str, words: Sequence[str]) -> None:
    """The sandbox for a lab grader's --sandbox: one word per line."""
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("".join(f"{word}\n" for word in words))


def probe(words: Sequence[str], seconds: float = 30.0) -> Optional[str]:
    """Starts /bin/true under @p words: None if it ran, else why not, in bwrap's words."""
    try:
        done = subprocess.run(list(words) + ["/bin/true"], stdin=subprocess.DEVNULL, capture_output=True,
                              text=True, timeout=seconds)
    except OSError as error:
        return f"{words[0]} cannot be started: {error}"
    except subprocess.TimeoutExpired:
        return f"{words[0]} did not start /bin/true within {seconds:.0f} s"
    if done.returncode == 0:
        return None
    said = (done.stderr or done.stdout).strip()
    return f"{words[0]} exited with status {done.returncode}: {said or 'no message'}"
