#!/usr/bin/env python3
"""Draws lab 1's measurement: vector_add bandwidth against footprint, for the
first (cold) launch and the later (warm) ones, with the L2 size marked.

    python3 grading/plot.py <folder with l2_sweep.csv>      (make lab1 runs this)

Writes l2_sweep.png beside the CSV, which the grader writes in step 3.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "scripts"))
from measurement_csv import plot_from  # noqa: E402


def draw(facts, table, plt):
    rows = [{k: float(v) for k, v in row.items()} for row in table]
    l2_mb = float(facts["l2_bytes"]) / 1e6
    mb = [r["footprint_bytes"] / 1e6 for r in rows]

    fig, ax = plt.subplots(figsize=(8, 5))
    ax.plot(mb, [r["cold_gbps"] for r in rows], "o-", label="launch 1 (after an L2 flush)")
    ax.plot(mb, [r["warm_gbps"] for r in rows], "s-", label="launches 2-5 (median)")
    if "peak_gbps" in facts:
        ax.axhline(float(facts["peak_gbps"]), color="gray", linestyle=":",
                   label=f"measured peak bandwidth ({float(facts['peak_gbps']):.0f} GB/s)")
    ax.axvline(l2_mb, color="black", linestyle="--", label=f"L2 size ({l2_mb:.1f} MB)")
    ax.axvspan(l2_mb / 8, l2_mb / 2, color="tab:green", alpha=0.08, label="well below L2")
    ax.axvspan(2 * l2_mb, max(mb) * 1.2, color="tab:red", alpha=0.06, label="well above L2")
    ax.set_xscale("log")
    ax.set_xlabel("footprint: bytes of a, b and c together (MB, log scale)")
    ax.set_ylabel("bandwidth (GB/s): footprint / event time")
    ax.set_title(f"vector_add, five launches in a row: {facts.get('gpu', 'GPU')}")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="small", loc="lower right")
    return fig


if __name__ == "__main__":
    sys.exit(plot_from("l2_sweep.csv", "No plot yet: {path} is written once step 3 passes.", draw))
