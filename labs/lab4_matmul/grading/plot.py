#!/usr/bin/env python3
"""Draws lab 4's roofline: each of your kernels by arithmetic intensity (FLOPs per
byte its threads ask global memory for) and the GFLOP/s it reached, under the
roofs measured on this GPU: the peak DRAM bandwidth (sloped) and the FP32 ceiling (flat).

    python3 grading/plot.py <folder with roofline.csv>      (make lab4 runs this)

Writes roofline.png beside the CSV, which the grader rewrites after every timed step.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "scripts"))
from measurement_csv import plot_from  # noqa: E402


def draw(facts, rows, plt):
    bandwidth = float(facts["peak_gbps"])
    peak = float(facts["fp32_gflops"])
    ridge = peak / bandwidth

    fig, ax = plt.subplots(figsize=(8, 5.5))
    x = [0.05, ridge, 1000]
    ax.plot(x, [min(peak, i * bandwidth) for i in x], color="black",
            label=f"roofs: DRAM {bandwidth:.0f} GB/s, FP32 {peak / 1000:.1f} TFLOP/s (measured)")
    for row in rows:
        gflops, width = float(row["gflops"]), row["width"]
        intensity = float(row["intensity_flop_per_byte"])
        if intensity <= 0:  # a library: its intensity is not ours to know, so a level, not a point
            ax.axhline(gflops, color="tab:gray", linestyle="--", label=f"{row['kernel']} (width {width})")
            continue
        ax.plot([intensity], [gflops], "o", markersize=8, label=f"{row['kernel']} (width {width})")
        ax.annotate(f"{gflops / 1000:.1f} TF", (intensity, gflops), textcoords="offset points", xytext=(6, -12))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(0.05, 1000)
    ax.set_ylim(10, peak * 3)
    ax.set_xlabel("FLOPs per byte requested from global memory (log scale)")
    ax.set_ylabel("GFLOP/s achieved (log scale)")
    ax.set_title(f"Your matrix multiplies on {facts.get('gpu', 'this GPU')}")
    ax.grid(True, which="both", alpha=0.3)
    ax.text(0.06, 0.25 * bandwidth * 1.3, "above the sloped roof: the caches\nserved loads that DRAM did not",
            fontsize="small", color="dimgray")
    ax.legend(fontsize="small", loc="lower right")
    return fig


if __name__ == "__main__":
    sys.exit(plot_from("roofline.csv", "No roofline yet: {path} is written once a timed step has run.", draw))
