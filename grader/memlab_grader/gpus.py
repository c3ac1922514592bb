"""Which GPU graded which row, when a class is graded on several (grade.py --gpus,
--slurm): the GPUs of this server as nvidia-smi lists them, the one this
process sees, each GPU's own run record (its reference calibration), and the
rule that one gradebook holds rows of one GPU model.

Timing ratios are measured against the reference on the same GPU, so rows graded
on two models are each fair, but not equally strict: a student whose kernel is
slow on one model may not be on the other. The instructor must choose to mix them.
"""
from __future__ import annotations

import glob
import json
import os
import platform
import re
import subprocess
from dataclasses import asdict, dataclass
from typing import Dict, List, Optional

from .grading import Layout, write_json_atomically
from .sandbox import gpu_devices


@dataclass
class Gpu:
    index: str  # nvidia-smi's index (PCI order)
    name: str   # the model, "NVIDIA H200"
    uuid: str   # "GPU-8f...", what CUDA_VISIBLE_DEVICES is given: it cannot mean another GPU


def list_gpus() -> List[Gpu]:
    """Every GPU nvidia-smi lists here (none without nvidia-smi or a driver)."""
    try:
        listed = subprocess.run(["nvidia-smi", "--query-gpu=index,name,uuid", "--format=csv,noheader"],
                                capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return []
    if listed.returncode != 0:
        return []
    found = []
    for line in listed.stdout.splitlines():
        fields = [field.strip() for field in line.split(",")]
        if len(fields) == 3 and fields[0].isdigit():
            found.append(Gpu(*fields))
    return found


def choose(spec: str, available: List[Gpu]) -> List[Gpu]:
    """The GPUs --gpus @p spec names: "all", or indexes as nvidia-smi numbers them ("0,2").
    Raises ValueError for one that is not there."""
    if spec.strip() == "all":
        return available
    by_index = {gpu.index: gpu for gpu in available}
    chosen = []
    for index in filter(None, (part.strip() for part in spec.split(","))):
        if index not in by_index:
            listed = ", ".join(f"{g.index} ({g.name})" for g in available) or "none (nvidia-smi lists no GPU)"
            raise ValueError(f"--gpus {spec}: there is no GPU {index} here; the GPUs are {listed}")
        if by_index[index] not in chosen:
            chosen.append(by_index[index])
    if not chosen:
        raise ValueError(f"--gpus {spec}: give 'all' or GPU indexes such as 0,1")
    return chosen


def visible_gpu(environ=None) -> Optional[Gpu]:
    """The one GPU this process grades on, as CUDA_VISIBLE_DEVICES names it (in @p environ,
    default os.environ): by UUID (a --gpus worker) or by index (Slurm's gres sets "0", "1",
    ...: read as nvidia-smi numbers the GPUs, in PCI bus order), its first entry if it names
    several; or the only GPU here. None where nvidia-smi lists no GPU (the calibration then
    finds whether there is one). Raises ValueError where it cannot be told which one GPU."""
    environ = os.environ if environ is None else environ
    available = list_gpus()
    given = environ.get("CUDA_VISIBLE_DEVICES")
    visible = (given or "").split(",")[0].strip()
    if not available:
        numbered = [node for node in gpu_devices() if re.fullmatch(r"nvidia\d+", os.path.basename(node))]
        if len(numbered) > 1:
            raise ValueError(f"nvidia-smi lists no GPU, but this machine has {len(numbered)} GPU device nodes "
                             f"({', '.join(sorted(numbered))}): cannot tell which one this worker grades on")
        return None
    for gpu in available:
        if visible and visible in (gpu.uuid, gpu.index):
            return gpu
    listed = "; ".join(f"{g.index} {g.uuid}" for g in available)
    if given is None:
        if len(available) == 1:
            return available[0]
        raise ValueError(f"CUDA_VISIBLE_DEVICES is not set, and this machine has {len(available)} GPUs ({listed}): "
                         "cannot tell which one this worker grades on")
    if len(available) == 1 and visible.isdigit():
        # A Slurm node that gives each job its own GPU (cgroup ConstrainDevices=yes): nvidia-smi
        # lists that one alone, under its own index, while Slurm numbers it 0.
        return available[0]
    raise ValueError(f"CUDA_VISIBLE_DEVICES={given} names none of the GPUs nvidia-smi lists here ({listed}): "
                     "cannot tell which one this worker grades on")


def pin(gpu: Gpu, environ=None) -> None:
    """Makes @p gpu the only one CUDA_VISIBLE_DEVICES names, by its UUID (in @p environ,
    default os.environ), before anything starts: the lab grader, its runners and the
    students' sandbox (which binds that GPU's /dev/nvidiaN alone: sandbox.gpu_devices) all
    see that GPU, whatever form Slurm or the instructor gave it in."""
    environ = os.environ if environ is None else environ
    environ["CUDA_VISIBLE_DEVICES"] = gpu.uuid
    environ["CUDA_DEVICE_ORDER"] = "PCI_BUS_ID"


def label(gpu: Optional[Gpu]) -> str:
    """How the summary names a GPU: its host and index, "gpu-host GPU 1"."""
    return f"{platform.node()} GPU {gpu.index}" if gpu else f"{platform.node()} (no GPU)"


def describe(gpu: Optional[Gpu]) -> dict:
    """What a row's stored outcome keeps of the GPU that graded it (and the Slurm task)."""
    facts = dict(asdict(gpu) if gpu else {}, host=platform.node(), label=label(gpu))
    job = os.environ.get("SLURM_JOB_ID")
    if job:
        facts["slurm_job"] = f"{os.environ.get('SLURM_ARRAY_JOB_ID', job)}_{os.environ.get('SLURM_ARRAY_TASK_ID', '')}"
    return facts


def _records_dir(layout: Layout) -> str:
    return os.path.join(layout.work, "gpus")


def save_record(layout: Layout, gpu_label: str, record: dict) -> None:
    """One GPU's run record (its calibration), merged into run.json when the reports are written."""
    folder = _records_dir(layout)
    os.makedirs(folder, exist_ok=True)
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", gpu_label)
    write_json_atomically(os.path.join(folder, f"{name}.json"), record)


def merge_records(layout: Layout, record: dict) -> None:
    """Puts every GPU's record into run.json's @p record: "gpus", by label; and the first
    GPU's facts as the run's "gpu" (and its calibration), where the run has none."""
    found: Dict[str, dict] = {}
    for path in sorted(glob.glob(os.path.join(_records_dir(layout), "*.json"))):
        try:
            with open(path, encoding="utf-8") as handle:
                data = json.load(handle)
            found[data["label"]] = data
        except (OSError, ValueError, KeyError):
            continue
    if not found:
        return
    record["gpus"] = found
    calibrated = [data for data in found.values() if data.get("reference_run")]
    if calibrated and not record.get("reference_run"):
        first = calibrated[0]
        for key in ("gpu", "run_time_limit", "check_titles", "reference_run"):
            record[key] = first[key]
    for data in found.values():
        if data.get("sandbox") and not (record.get("sandbox") or {}).get("used"):
            record["sandbox"] = data["sandbox"]


def claim_model(layout: Layout, model: str, record_model: str = "") -> str:
    """The GPU model of this gradebook: the first worker's to get here (or the model of
    an earlier run's record, @p record_model) is kept; returns it."""
    path = os.path.join(layout.work, "gpu-model.txt")
    temporary = f"{path}.{os.getpid()}"
    with open(temporary, "w", encoding="utf-8") as handle:
        handle.write(record_model or model)
    try:
        os.link(temporary, path)  # fails if it exists: the first worker's model stays
    except FileExistsError:
        pass
    finally:
        os.unlink(temporary)
    with open(path, encoding="utf-8") as handle:
        return handle.read().strip()


def stopped_lines(layout: Layout) -> List[str]:
    """One line per GPU that could not grade or stopped grading, saying why (its run record's)."""
    record: dict = {}
    merge_records(layout, record)
    return _stopped(record.get("gpus") or {})


def _stopped(gpus: Dict[str, dict]) -> List[str]:
    lines = []
    for name, data in sorted(gpus.items()):
        if data.get("stopped"):
            lines.append(f"{name} stopped grading: {data['stopped']}; its rows were left to the other GPUs.")
        elif data.get("trouble"):
            lines.append(f"{name} graded nothing: {data['trouble']}.")
    return lines


def summary_sections(rows, record: dict):
    """The summary's account of several GPUs: each GPU and its calibration, and which
    GPU graded which row. Nothing when the run record names no GPUs (one GPU, as before)."""
    from .reports import Section  # reports imports this module
    gpus = record.get("gpus") or {}
    if not gpus:
        return []
    graded_by: Dict[str, List[str]] = {}
    for row in rows:
        where = (row.outcome.get("gpu") or {}).get("label")
        if where:
            graded_by.setdefault(where, []).append(row.student)
    models = sorted({data.get("name", "") for data in gpus.values() if data.get("name")})
    text = (f"{len(gpus)} GPUs graded this class, each timing alone against the reference on itself."
            + (f" WARNING: they are of different models ({', '.join(models)}): each row's timing ratios are "
               f"fair on its own GPU, but rows of different models are not equally strict." if len(models) > 1 else "")
            + "".join(f" {line}" for line in _stopped(gpus)))
    table = []
    for name, data in sorted(gpus.items()):
        reference = data.get("reference_run", {}).get("seconds")
        table.append([name, data.get("name", ""), data.get("uuid", ""),
                      f"{reference:.1f} s" if isinstance(reference, (int, float)) else data.get("trouble", "-"),
                      str(len(graded_by.get(name, [])))])
    sections = [Section("GPUs", ["GPU", "model", "UUID", "reference run", "rows graded"], table, text=text)]
    sections.append(Section("Which GPU graded which row", ["student", "GPU"],
                            [[row.student, (row.outcome.get("gpu") or {}).get("label", "-")] for row in rows]))
    return sections
