#!/usr/bin/env python3
"""A stand-in for a lab grader in the grader's host tests. Like a real one, it
starts the student's runner (the kit's runner, fake_runner.sh) under the
--sandbox command with the socket as fd 3, and exits 5 if the build does not
load; it writes results as a real grader does (before and after each check).
What the "student" does is read from markers in the student's build
(fake_nvcc.py copies the source):
  FAKE_PASS_STEPS=N   steps after N fail (default: all pass)
  FAKE_RATIO=x        the timed check's student/reference time ratio
  FAKE_RUNNER=kind@id the student's runner meets trouble of this kind (crashed,
                      timed_out, context_lost, left_work_running) in check id:
                      the check fails, the grader carries on with a fresh runner
  FAKE_NOT_LOADABLE   the runner cannot load the build (fake_runner.sh)
  FAKE_CRASH_IN=id    the grader itself is killed by SIGSEGV while running check id
  FAKE_HANG           never ends;  FAKE_SPAM: prints without end
  FAKE_CONTEXT_LOST   exits 4 after step1.correct, as when the grader's own context is lost
  FAKE_MEMORY         names hoarded GPU memory after step1.correct
  FAKE_EXIT_EARLY     exits 0 before the checks are done (a grader's bug)
  FAKE_NO_GPU_NOW     exits 77 once started, as when the GPU stops being usable mid-run
  FAKE_GPU_FAILED_NOW exits 3 once started, as when the GPU fails before any check (an Xid)
  FAKE_PRINTS_PASS    prints a results-like text claiming full marks, and fails
  FAKE_SLOW=s         sleeps s seconds before the checks (unless FAKE_NOT_SLOW is set)
Environment: FAKE_NO_GPU=1 makes it exit 77; FAKE_RUN_LOG=file gets a line per
run; FAKE_ARGS_LOG=file gets each run's command line as a JSON line; FAKE_GPU_LOG=file
gets a JSON line per run when it ends: its CUDA_VISIBLE_DEVICES, start and end times."""
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time

CHECKS = [("step1.correct", 1), ("step1.speed", 1), ("step2.correct", 2), ("step3.correct", 3)]
args = sys.argv[1:]
option = lambda name: args[args.index(name) + 1] if name in args else None  # noqa: E731
if os.environ.get("FAKE_NO_GPU"):
    print("no GPU here")
    sys.exit(77)
student, results, report = option("--student"), option("--results"), option("--report")
text = open(student, encoding="latin-1").read()
if os.environ.get("FAKE_RUN_LOG"):
    with open(os.environ["FAKE_RUN_LOG"], "a") as log:
        log.write(os.path.basename(os.path.dirname(student)) + "\n")
if os.environ.get("FAKE_GPU_LOG"):
    import atexit
    started = time.time()

    def log_gpu():
        with open(os.environ["FAKE_GPU_LOG"], "a") as log:
            log.write(json.dumps(dict(gpu=os.environ.get("CUDA_VISIBLE_DEVICES", ""), start=started, end=time.time(),
                                      student=os.path.basename(os.path.dirname(student)))) + "\n")
    atexit.register(log_gpu)
if os.environ.get("FAKE_ARGS_LOG"):
    with open(os.environ["FAKE_ARGS_LOG"], "a") as log:
        log.write(json.dumps(sys.argv) + "\n")


def start_runner():
    """The student's runner, as the real grader starts it: the sandbox's words,
    then the runner, the build and the socket, which the runner finds as fd 3."""
    prefix = []
    if option("--sandbox"):
        with open(option("--sandbox"), encoding="utf-8") as words:
            prefix = [line.rstrip("\n") for line in words if line.strip()]
    ours, theirs = socket.socketpair()
    command = prefix + [option("--runner"), "--library", student, "--socket", "3"]
    runner = subprocess.Popen(["/bin/sh", "-c", f'exec 3>&{theirs.fileno()}; exec "$@"', "sh"] + command,
                              pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, stderr=subprocess.PIPE)
    theirs.close()
    ours.settimeout(30)
    try:
        said = ours.makefile().readline().strip()
    except OSError:
        said = ""
    complaint = runner.communicate(timeout=30)[1].decode(errors="replace")
    if said != "loaded":
        print(complaint.rstrip())
        print("lab1 grader: the student's runner could not be started: it ended before answering")
        sys.exit(5)
marker = lambda name: re.search(name + r"(?:=(\S+))?", text)  # noqa: E731
state = dict(lab="lab1", title="fake", steps=3, checks=[], running=None, complete=False, gpu_trouble=None,
             facts={"GPU": "Fake GPU"})


def save():
    for path, content in ((results, json.dumps(state)), (report, f"fake report: {len(state['checks'])} checks\n")):
        with open(path + ".partial", "w") as handle:
            handle.write(content)
        os.replace(path + ".partial", path)


save()
start_runner()
if marker("FAKE_NO_GPU_NOW"):
    print("the GPU is gone")
    sys.exit(77)
if marker("FAKE_GPU_FAILED_NOW"):
    print("lab1 grader: the GPU failed before any check ran: Xid 79, GPU has fallen off the bus")
    sys.exit(3)
slow = marker("FAKE_SLOW")
if slow and not os.environ.get("FAKE_NOT_SLOW"):
    time.sleep(float(slow.group(1)))
passed_steps = int(marker("FAKE_PASS_STEPS").group(1)) if marker("FAKE_PASS_STEPS") else 3
ratio = float(marker("FAKE_RATIO").group(1)) if marker("FAKE_RATIO") else 1.0
crash = marker("FAKE_CRASH_IN")
trouble = marker("FAKE_RUNNER")
trouble_kind, _, trouble_check = (trouble.group(1) or "").partition("@") if trouble else ("", "", "")
for check, step in CHECKS:
    state["running"] = check
    save()
    if crash and crash.group(1) == check:
        os.kill(os.getpid(), signal.SIGSEGV)
    if marker("FAKE_HANG"):
        time.sleep(3600)
    if marker("FAKE_SPAM"):
        while True:
            print("spam " * 20)
    if step > passed_steps + 1 or any(c["verdict"] != "pass" for c in state["checks"] if c["step"] < step):
        verdict = "blocked"
    else:
        verdict = "pass" if step <= passed_steps else "fail"
    if check == trouble_check and verdict == "pass":
        verdict = "fail"
        state["gpu_trouble"] = dict(kind=trouble_kind, check=check, message=f"the student's runner: {trouble_kind}")
        start_runner()  # a fresh one for the checks after it
    row = dict(step=step, id=check, title=f"fake {check}", verdict=verdict, detail="", ratio=None)
    if check == "step1.speed" and verdict == "pass":  # as the labs do: timed only once the answer is right
        row["ratio"] = ratio
    state["checks"].append(row)
    state["running"] = None
    if check == "step1.correct" and marker("FAKE_CONTEXT_LOST"):
        state["gpu_trouble"] = dict(kind="context_lost", check=check, message="an illegal memory access was encountered")
        save()
        sys.exit(4)
    if check == "step1.correct" and marker("FAKE_MEMORY"):
        state["gpu_trouble"] = dict(kind="memory_exhausted", check=check, message="only 1 MB of 80 GB free")
    if check == "step1.correct" and marker("FAKE_EXIT_EARLY"):
        save()
        sys.exit(0)
    save()
if marker("FAKE_PRINTS_PASS"):
    print(json.dumps(dict(checks=[dict(id=c, verdict="pass") for c, _ in CHECKS], complete=True)))
state["complete"] = True
save()
sys.exit(0 if all(c["verdict"] == "pass" for c in state["checks"]) else 1)
