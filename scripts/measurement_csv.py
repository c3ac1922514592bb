"""Reading the CSV files the graders write for the labs' plots: '# key: value'
lines with facts about the run (GPU, measured ceilings), then a CSV table; and
the part every lab's grading/plot.py shares (plot_from)."""
import csv
import os
import sys


def read_measurements(path):
    """Returns (facts, rows): the '# key: value' lines as a dict of strings, and
    the table's rows as dicts of strings, keyed by the header's column names."""
    facts, lines = {}, []
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                key, _, value = line[1:].partition(":")
                facts[key.strip()] = value.strip()
            else:
                lines.append(line)
    return facts, list(csv.DictReader(lines))


def plot_from(csv_name, missing, draw):
    """Runs a lab's plot: reads csv_name in the folder given as the first
    argument (default "."), or prints `missing` if the grader has not written it
    yet; draw(facts, rows, plt) returns a matplotlib figure, saved beside the CSV
    as a PNG of the same name. Returns the exit status."""
    folder = sys.argv[1] if len(sys.argv) > 1 else "."
    path = os.path.join(folder, csv_name)
    if not os.path.exists(path):
        print(missing.format(path=path))
        return 0
    import matplotlib

    matplotlib.use("Agg")  # no display needed
    import matplotlib.pyplot as plt

    facts, rows = read_measurements(path)
    fig = draw(facts, rows, plt)
    fig.tight_layout()
    out = os.path.splitext(path)[0] + ".png"
    fig.savefig(out, dpi=120)
    print(f"Plot: {out}")
    return 0
