"""Reading the CSV files the graders write for the labs' plots: '# key: value'
lines with facts about the run (GPU, measured ceilings), then a CSV table."""
import csv


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
