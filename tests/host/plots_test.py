#!/usr/bin/env python3
"""Every lab's grading/plot.py, as `make labN` runs it (scripts/lab.sh): before
the grader has written its CSV it says so and exits 0; with a CSV laid out as
the grader writes it, it draws the PNG. Without matplotlib the second half is
skipped (exit 77) once the first has passed, which still proves the script
finds its shared module."""
import glob
import importlib.util
import os
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

# A CSV of each plot as the graders write it (labs/lab1_caching/grading/sweep.cpp,
# labs/lab4_matmul/grading/notes.cpp).
SAMPLES = {
    "l2_sweep.csv": "# gpu: a GPU\n# l2_bytes: 52428800\n# peak_gbps: 3055\n"
                    "footprint_bytes,l2_multiple,cold_gbps,warm_gbps,warm_speedup,launch1_ms,launch2_ms\n"
                    "6553600,0.125,1500,2100,1.38,0.01,0.007\n104857600,2,2800,2750,0.98,0.04,0.04\n",
    "roofline.csv": "# gpu: a GPU\n# peak_gbps: 3055\n# fp32_gflops: 62400\n"
                    "kernel,intensity_flop_per_byte,gflops,width\n"
                    "matmul_naive,0.25,5300,4096\ncuBLAS SGEMM,0,51700,4096\n",
}


def run(script, folder):
    return subprocess.run([sys.executable, script, folder], capture_output=True, text=True, timeout=120)


def main():
    scripts = sorted(glob.glob(os.path.join(ROOT, "labs", "*", "grading", "plot.py")))
    if not scripts:
        print("no lab has a plot.py")
        return 1
    failed = False
    have_matplotlib = importlib.util.find_spec("matplotlib") is not None
    for script in scripts:
        lab = os.path.relpath(script, ROOT)
        with tempfile.TemporaryDirectory() as empty:
            result = run(script, empty)
            if result.returncode != 0 or "yet" not in result.stdout:
                print(f"FAIL {lab} with no CSV: exit {result.returncode}\n{result.stdout}{result.stderr}")
                failed = True
                continue
        if not have_matplotlib:
            continue
        with tempfile.TemporaryDirectory() as folder:
            for name, text in SAMPLES.items():
                with open(os.path.join(folder, name), "w") as handle:
                    handle.write(text)
            result = run(script, folder)
            pngs = glob.glob(os.path.join(folder, "*.png"))
            if result.returncode != 0 or len(pngs) != 1:
                print(f"FAIL {lab} with a CSV: exit {result.returncode}, {len(pngs)} PNG\n{result.stdout}{result.stderr}")
                failed = True
            else:
                print(f"ok {lab}: {os.path.basename(pngs[0])}")
    if failed:
        return 1
    if not have_matplotlib:
        print(f"{len(scripts)} plot scripts start and find their module; drawing skipped: no matplotlib")
        return 77
    return 0


if __name__ == "__main__":
    sys.exit(main())
