#!/usr/bin/env python3
"""A stand-in for nvidia-smi in the grader's host tests (installed as `nvidia-smi` on PATH):
FAKE_GPUS="Fake H200;Fake H200" lists two GPUs, with indexes 0, 1 and UUIDs GPU-fake-0, GPU-fake-1.
Answers --query-gpu=index,name,uuid and driver_version, in CSV without a header."""
import os
import sys

names = [name for name in os.environ.get("FAKE_GPUS", "").split(";") if name]
query = next((a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--query-gpu=")), "")
if not names:
    print("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.")
    sys.exit(9)
for index, name in enumerate(names):
    values = dict(index=str(index), name=name, uuid=f"GPU-fake-{index}", driver_version="999.99")
    print(", ".join(values.get(field, "") for field in query.split(",")))
