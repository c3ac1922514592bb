#!/usr/bin/env python3
"""A stand-in for a lab grader in the grader's host tests. It writes results as
a real grader does (before and after each check); what the "student" does is
read from markers in the student's build (fake_nvcc.py copies the source):
  FAKE_PASS_STEPS=N   steps after N fail (default: all pass)
  FAKE_RATIO=x        the timed check's student/reference time ratio
  FAKE_CRASH_IN=id    killed by SIGSEGV while running check id
  FAKE_HANG           never ends;  FAKE_SPAM: prints without end
  FAKE_CONTEXT_LOST   exits 4 after step1.correct, as on a sticky CUDA error
  FAKE_MEMORY         names hoarded GPU memory after step1.correct
  FAKE_EXIT_EARLY     exits 0 before the checks are done
  FAKE_PRINTS_PASS    prints a results-like text claiming full marks, and fails
  FAKE_SLOW=s         sleeps s seconds before the checks (unless FAKE_NOT_SLOW is set)
Environment: FAKE_NO_GPU=1 makes it exit 77; FAKE_RUN_LOG=file gets a line per run."""
import json
import os
import re
import signal
import sys
import time

CHECKS = [("step1.correct", 1), ("step1.speed", 1), ("step2.correct", 2), ("step3.correct", 3)]
args = sys.argv[1:]
option = lambda name: args[args.index(name) + 1] if name in args else None  # noqa: E731
if os.environ.get("FAKE_NO_GPU"):
    print("no GPU here")
    sys.exit(77)
student, results, report = option("--student"), option("--results"), option("--report")
text = open(student, encoding="utf-8").read()
if os.environ.get("FAKE_RUN_LOG"):
    with open(os.environ["FAKE_RUN_LOG"], "a") as log:
        log.write(os.path.basename(os.path.dirname(student)) + "\n")
marker = lambda name: re.search(name + r"(?:=(\S+))?", text)  # noqa: E731
state = dict(lab="lab1", title="fake", steps=3, checks=[], running=None, complete=False, gpu_trouble=None,
             facts={"GPU": "Fake GPU"})


def save():
    for path, content in ((results, json.dumps(state)), (report, f"fake report: {len(state['checks'])} checks\n")):
        with open(path + ".partial", "w") as handle:
            handle.write(content)
        os.replace(path + ".partial", path)


save()
slow = marker("FAKE_SLOW")
if slow and not os.environ.get("FAKE_NOT_SLOW"):
    time.sleep(float(slow.group(1)))
passed_steps = int(marker("FAKE_PASS_STEPS").group(1)) if marker("FAKE_PASS_STEPS") else 3
ratio = float(marker("FAKE_RATIO").group(1)) if marker("FAKE_RATIO") else 1.0
crash = marker("FAKE_CRASH_IN")
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
    row = dict(step=step, id=check, title=f"fake {check}", verdict=verdict, detail="", ratio=None)
    if check == "step1.speed" and step <= passed_steps:  # as the labs do: timed only once the answer is right
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
