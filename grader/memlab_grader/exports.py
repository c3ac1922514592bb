"""The gradebook as the course's gradebook imports it: OUT/export/.

  canvas.csv            Canvas's Grades > Import: Student, ID (Canvas's user id), SIS User ID,
                        SIS Login ID, Section, and one column for the lab's total
  canvas-by-check.csv   the same with a column per check (each becomes an assignment)
  gradescope.csv        Gradescope's score upload: Name, SID, Email, Total Score, a column
                        per check (the upload asks which column holds the scores)

Every CSV the grader writes (these and gradebook.csv) goes through write_csv: a text cell
that a spreadsheet would take for a formula (one starting with = + - @, a tab or a carriage
return; a student chooses their Gradescope name, and names the files in their folder) gets a
single quote before it, as OWASP recommends. Scores are numbers, never negative, and stay numbers.

A row that has not run (no GPU, interrupted) has empty scores, never a zero: Canvas and
Gradescope leave an empty cell's grade as it was. A group's submission (Gradescope) gives
a line to each of its students. Ids are written only where the layout gave that kind of
id: a Canvas user id in Canvas's ID column, a Gradescope SID in its SID column.
"""
from __future__ import annotations

import csv
import io
import os
import re
from typing import List, Sequence

from .points import Table, format_points

CANVAS_ID, GRADESCOPE_SID = "Canvas user id", "Gradescope SID"
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
NUMBER = re.compile(r"^\d+(\.\d+)?$")


def _people(row) -> List[dict]:
    """Whom a row's score belongs to: its students (name, id, email)."""
    outcome = row.outcome
    return outcome.get("members") or [dict(name=row.student, id=outcome.get("student_id", ""),
                                           email=outcome.get("email", ""))]


def _score(row, value: float) -> str:
    return format_points(value) if row.final else ""


def spreadsheet_cell(cell) -> str:
    """@p cell as a spreadsheet shows it and never runs it: text that starts as a formula
    does ('=HYPERLINK(...)', '@SUM(...)', '-1+2') gets a single quote before it."""
    text = str(cell)
    return "'" + text if text.startswith(FORMULA_STARTS) and not NUMBER.match(text) else text


def write_csv(rows: List[List[str]]) -> str:
    """@p rows as CSV, every cell through spreadsheet_cell."""
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows([[spreadsheet_cell(cell) for cell in row] for row in rows])
    return out.getvalue()




def canvas_csv(lab: str, rows: Sequence, table: Table, by_check: bool = False) -> str:
    """Canvas's gradebook import. The score columns are named after the lab ("lab1", or
    "lab1 step1.correct"): rename one to an assignment's name as Canvas shows it to fill
    that assignment; a name Canvas does not know makes a new assignment."""
    columns = [f"{lab} {check}" for check in table] if by_check else [lab]
    lines = [["Student", "ID", "SIS User ID", "SIS Login ID", "Section"] + columns]
    for row in rows:
        scores = [_score(row, row.points[check]) for check in table] if by_check else [_score(row, row.total)]
        canvas = row.outcome.get("id_kind") == CANVAS_ID
        for person in _people(row):
            lines.append([person["name"], person["id"] if canvas else "", "", "", ""] + scores)
    return write_csv(lines)


def gradescope_csv(rows: Sequence, table: Table) -> str:
    """Gradescope's score upload: students found by SID or e-mail."""
    lines = [["Name", "SID", "Email", "Total Score"] + list(table)]
    for row in rows:
        sid = row.outcome.get("id_kind") == GRADESCOPE_SID
        for person in _people(row):
            lines.append([person["name"], person["id"] if sid else "", person["email"], _score(row, row.total)] +
                         [_score(row, row.points[check]) for check in table])
    return write_csv(lines)


def write_exports(folder: str, lab: str, rows: Sequence, table: Table) -> None:
    from .grading import write_text_atomically  # grading's writer: whole files or none

    os.makedirs(folder, exist_ok=True)
    for name, text in (("canvas.csv", canvas_csv(lab, rows, table)),
                       ("canvas-by-check.csv", canvas_csv(lab, rows, table, by_check=True)),
                       ("gradescope.csv", gradescope_csv(rows, table))):
        write_text_atomically(os.path.join(folder, name), text)
