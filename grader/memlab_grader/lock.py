"""OUT belongs to one run at a time: a lock on OUT/.work/lock (flock), held for a
process's whole life.

  grade.py (compiling, grading, submitting)   exclusive, at once or not at all
  its --gpus workers and its lab graders       the same lock: its descriptor, passed down
  a Slurm array task (a worker)                shared: the tasks of one array run side by side
  the Slurm report job (--reports-only)        exclusive: once the tasks have ended

A second grade.py on the same OUT is refused, and a Slurm task waits (then gives up)
while a grade.py holds OUT: rows are never compiled or graded twice at once. The lock
goes with the processes: nothing is left to clean up after a crash. An flock belongs
to the open file, not to one process, so grade.py passes its descriptor to every
process that works on OUT for it (held_fds): a grade.py killed with -9 leaves OUT
locked until its workers and lab graders have ended too (red team 11), and a
--resume cannot start beside them. On a shared file
system (the compute nodes') Linux's NFS client keeps flock locks on the server; a file
system without locks (Lustre mounted without -o flock) is named, and not locked.
"""
from __future__ import annotations

import errno
import fcntl
import os
import platform
import sys
import time
from typing import List, Tuple

_held: List[int] = []  # open for the process's life: closing the file would release the lock
INHERITED = "MEMLAB_OUT_LOCK_FD"  # a --gpus worker's lock descriptor, passed by its grade.py


class OutInUse(Exception):
    """Another process holds OUT."""


def hold(out: str, shared: bool = False, wait_seconds: float = 0.0) -> None:
    """Takes OUT's lock (exclusive unless @p shared), waiting up to @p wait_seconds for it.
    Raises OutInUse, naming the holder, when it is not had in time."""
    work = os.path.join(out, ".work")
    os.makedirs(work, mode=0o700, exist_ok=True)
    path = os.path.join(work, "lock")
    handle = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    deadline = time.monotonic() + wait_seconds
    while True:
        try:
            fcntl.flock(handle, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
            break
        except OSError as error:
            if error.errno in (errno.ENOSYS, errno.EOPNOTSUPP, errno.ENOLCK, errno.EINVAL):
                print(f"WARNING: {out}'s file system does not support locks ({error.strerror}): nothing keeps a "
                      "second grade.py, or a Slurm task, from working on it at the same time.", file=sys.stderr)
                os.close(handle)
                return
            if error.errno not in (errno.EWOULDBLOCK, errno.EAGAIN) or time.monotonic() >= deadline:
                holder = _read(path)
                os.close(handle)
                raise OutInUse(f"{out} is in use by another grade.py{f' ({holder})' if holder else ''}: one run at "
                               "a time works on an OUT. Wait for it to end (or stop it), then run again.") from None
            time.sleep(0.5)
    if not shared:  # who holds it, for the message of the one refused
        os.ftruncate(handle, 0)
        os.pwrite(handle, f"pid {os.getpid()} on {platform.node()}: {' '.join(sys.argv[1:4])} ...".encode(), 0)
    _held.append(handle)


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read().strip()
    except OSError:
        return ""


def held_fds() -> Tuple[int, ...]:
    """The lock's descriptors, to pass (subprocess's pass_fds) to a process that works
    on OUT on this one's behalf: the lock is then held while it lives."""
    return tuple(_held)


def adopt_inherited() -> bool:
    """In a --gpus worker: keeps the descriptor its grade.py passed down (INHERITED), to
    pass on to its own lab graders. False where there is none."""
    value = os.environ.get(INHERITED, "")
    if not value.isdigit():
        return False
    try:
        os.fstat(int(value))
    except OSError:
        return False
    _held.append(int(value))
    return True
