"""What a grading run leaves in OUT, all computed from the stored outcomes and
the points table: per student feedback.txt and results.json (Gradescope's
format), gradebook.csv, summary.md and summary.html. Each file is written to a
temporary name and renamed, so an interrupted run never leaves half a file.
"""
from __future__ import annotations

import html
import io
import json
import os
import statistics
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence

from . import exports, gpus, grading
from .grading import write_text_atomically
from .layouts import row_folder
from .points import Rule, Table, earned, format_points, total
from .statuses import Status


@dataclass
class Scored:
    """One row of the gradebook."""

    outcome: grading.Outcome
    points: Dict[str, float]
    total: float

    @property
    def student(self) -> str:
        return self.outcome["student"]

    @property
    def row_folder(self) -> str:
        """Its folder in OUT/students/ (Submission.row_folder)."""
        return self.outcome.get("row_folder") or row_folder(self.outcome.get("key") or self.student)

    @property
    def status(self) -> str:
        return self.outcome["status"]

    @property
    def final(self) -> bool:
        """Whether the row is a grade: a row that never ran (no GPU, interrupted) is not,
        and must not read as zero points anywhere a grade could be copied from."""
        return self.status not in grading.NOT_FINAL

    def check(self, check_id: str) -> Optional[dict]:
        return next((c for c in self.outcome.get("checks", []) if c.get("id") == check_id), None)


def score(outcome: grading.Outcome, table: Table) -> Scored:
    """Points per check and the total. Checks that ran keep what they earned
    whatever happened later (a crash in step 4 keeps steps 1-3)."""
    ran = {check.get("id"): check for check in outcome.get("checks", [])}
    points = {check: earned(rule, ran.get(check)) for check, rule in table.items()}
    return Scored(outcome, points, round(sum(points.values()), 2))


def _one_line(text: str, limit: int = 200) -> str:
    line = " | ".join(part.strip() for part in (text or "").splitlines() if part.strip())
    return line if len(line) <= limit else line[: limit - 3] + "..."


def _how(rule: Rule, check: Optional[dict]) -> str:
    if check is None:
        return "did not run"
    if rule.timed:
        ratio = check.get("ratio")
        took = f"{ratio:.2f}x the reference's time" if isinstance(ratio, (int, float)) else "no time measured"
        return f"{took}; {rule.describe()}"
    return check.get("verdict", "")


def feedback_text(lab: str, row: Scored, table: Table, titles: Dict[str, str], lab_report: str,
                  compile_log: str) -> str:
    out = io.StringIO()
    out.write(f"{lab}: feedback for {row.student}\n")
    out.write(f"Status: {row.status}. {Status.headline_of(row.status)}\n")
    if row.outcome.get("note"):
        out.write(f"Note: {row.outcome['note']}\n")
    if row.final:
        out.write(f"Score: {format_points(row.total)} of {format_points(total(table))}\n\n")
    elif row.status == Status.AMBIGUOUS:
        out.write(f"Score: none yet, out of {format_points(total(table))}: the instructor chooses which file is "
                  f"graded\n\n")
    else:
        out.write(f"Score: none yet, out of {format_points(total(table))}: the code has not run (the grade comes "
                  f"when it is graded on a GPU)\n\n")
    width = max([len(check) for check in table] + [5])
    out.write(f"{'Check':<{width}}  {'Points':>13}  How\n")
    for check, rule in table.items():
        ran = row.check(check)
        awarded = f"{format_points(row.points[check])} / {format_points(rule.points)}"
        out.write(f"{check:<{width}}  {awarded:>13}  {_how(rule, ran)}")
        title = (ran or {}).get("title") or titles.get(check, "")
        out.write(f"  ({title})\n" if title else "\n")
    if row.outcome.get("detail"):
        out.write(f"\nWhat happened:\n{row.outcome['detail']}\n")
    if row.status == Status.COMPILE_ERROR and compile_log:
        out.write(f"\nThe compiler's output:\n{compile_log.strip()}\n")
    if lab_report.strip():
        out.write(f"\nThe lab's own report, as `make {lab}` prints it:\n{lab_report.rstrip()}\n")
    return out.getvalue()


def gradescope_test_name(check: str, title: str) -> str:
    """A check's name in Gradescope's results: its id once, then its title if it has
    one that says more ("step1.correct: vector_add is correct")."""
    title = title.strip()
    if title.startswith(check):
        title = title[len(check):].lstrip(" :-")
    return f"{check}: {title}" if title else check


def gradescope_results(row: Scored, table: Table, titles: Dict[str, str]) -> dict:
    """Gradescope's autograder results format."""
    tests = []
    for check, rule in table.items():
        ran = row.check(check)
        title = (ran or {}).get("title") or titles.get(check, "")
        lines = [_how(rule, ran)]
        for key in ("measured", "reference", "detail", "hint"):
            if ran and ran.get(key) and (key != "hint" or ran.get("verdict") != "pass"):
                lines.append(f"{key}: {ran[key]}")
        tests.append(dict(name=gradescope_test_name(check, title), score=row.points[check],
                          max_score=rule.points,
                          status="passed" if row.points[check] >= rule.points else "failed",
                          output="\n".join(lines)))
    output = f"{row.status}. {Status.headline_of(row.status)}"
    if row.outcome.get("note"):
        output += f"\nNote: {row.outcome['note']}"
    if row.outcome.get("detail"):
        output += "\n" + row.outcome["detail"]
    return dict(score=row.total, output=output, tests=tests)


def read_text(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return ""


def write_student_files(layout: grading.Layout, lab: str, row: Scored, table: Table, titles: Dict[str, str]) -> None:
    folder = layout.student_dir(row.row_folder)
    os.makedirs(folder, exist_ok=True)
    text = feedback_text(lab, row, table, titles, read_text(os.path.join(folder, "lab-report.txt")),
                         read_text(os.path.join(folder, "compile.log")))
    write_text_atomically(os.path.join(folder, "feedback.txt"), text)
    results = os.path.join(folder, "results.json")
    if row.final:
        write_text_atomically(results, json.dumps(gradescope_results(row, table, titles), indent=1) + "\n")
    elif os.path.exists(results):
        os.remove(results)  # a row that has not run has no results to upload: zeros would be recorded


def gradebook_csv(rows: Sequence[Scored], table: Table) -> str:
    """One line per row; no cell a spreadsheet would run (exports.write_csv)."""
    lines = [["student", "id", "status", "total", "max"] + list(table) + ["note", "detail"]]
    for row in rows:
        # A row that has not run leaves its points empty: a spreadsheet must not take it for zeros.
        shown = format_points if row.final else (lambda _: "")
        lines.append([row.student, row.outcome.get("student_id", ""), row.status, shown(row.total),
                      format_points(total(table))] + [shown(row.points[check]) for check in table] +
                     [_one_line(row.outcome.get("note", "")), _one_line(row.outcome.get("detail", ""))])
    return exports.write_csv(lines)


# The class summary: sections of tables, rendered as Markdown and as HTML.
@dataclass
class Section:
    title: str
    headers: List[str]
    rows: List[List[str]]
    text: str = ""
    bars: List[tuple] = field(default_factory=list)  # (label, count) for a histogram


def summary_sections(lab: str, rows: Sequence[Scored], table: Table, record: dict) -> List[Section]:
    maximum = total(table)
    sections = []
    gpu = record.get("gpu", {}).get("GPU", "no GPU")
    ran = [row for row in rows if row.outcome.get("checks")]
    totals = [row.total for row in rows if row.final]  # rows that have not run have no score
    facts = [f"{len(rows)} submissions, {sum(r.status == Status.GRADED for r in rows)} graded to the end",
             f"GPU: {gpu}", f"grader {record.get('version', '?')} ({record.get('git', '?')})"]
    sandbox = record.get("sandbox")
    if sandbox:
        facts.append("runners sandboxed (bwrap)" if sandbox.get("used") else
                     f"runners NOT sandboxed: {sandbox.get('reason', '')}")
    held_by = record.get("gpu", {}).get("Runners held by", "")
    if held_by.startswith("signals"):
        facts.append(f"runners held between calls by {held_by}")
    if totals:
        facts.append(f"mean {statistics.mean(totals):.1f}, median {statistics.median(totals):.1f} of {format_points(maximum)}")
    sections.append(Section(f"{lab}: class summary", [], [], text="; ".join(facts) + "."))

    counts: Dict[str, int] = {}
    for row in rows:
        counts[row.status] = counts.get(row.status, 0) + 1
    sections.append(Section("Statuses", ["status", "submissions"],
                            [[status, str(n)] for status, n in sorted(counts.items(), key=lambda x: -x[1])]))

    bins = [0] * 10
    for value in totals:
        share = value / maximum if maximum else 0
        bins[min(9, int(share * 10))] += 1
    labels = [f"{10 * i}-{10 * i + 9}%" if i < 9 else "90-100%" for i in range(10)]
    sections.append(Section("Score distribution", ["share of the points", "submissions"],
                            [[label, str(n)] for label, n in zip(labels, bins)], bars=list(zip(labels, bins))))

    check_rows = []
    for check, rule in table.items():
        verdicts = [(row.check(check) or {}).get("verdict", "did not run") for row in ran]
        got = [row.points[check] for row in ran]
        check_rows.append([check, str(verdicts.count("pass")), str(verdicts.count("fail")),
                           str(verdicts.count("blocked")), str(verdicts.count("did not run")),
                           f"{statistics.mean(got):.1f} / {format_points(rule.points)}" if got else "-"])
    check_rows.sort(key=lambda r: -int(r[2]))
    sections.append(Section("Checks, most failed first (submissions that ran)",
                            ["check", "passed", "failed", "blocked", "did not run", "mean points"], check_rows))

    timing_rows = []
    for check, rule in table.items():
        if not rule.timed:
            continue
        ratios = sorted(c["ratio"] for c in (row.check(check) for row in ran)
                        if c and isinstance(c.get("ratio"), (int, float)))
        if ratios:
            full = sum(r <= rule.full_at for r in ratios)
            timing_rows.append([check, str(len(ratios)), f"{ratios[0]:.2f}", f"{statistics.median(ratios):.2f}",
                                f"{ratios[-1]:.2f}", f"{full} of {len(ratios)}"])
        else:
            timing_rows.append([check, "0", "-", "-", "-", "-"])
    sections.append(Section("Timing spread: student time / reference time",
                            ["check", "timed", "fastest", "median", "slowest", "full points"], timing_rows))

    sections += gpus.summary_sections(rows, record)  # several GPUs: which graded which row
    sections.append(Section("Students", ["student", "status", "total", "detail"],
                            [[row.student, row.status, format_points(row.total) if row.final else "-",
                              _one_line(row.outcome.get("detail", ""), 120)] for row in rows]))
    return sections


def _markdown_cell(text: str) -> str:
    return text.replace("|", "\\|")


def summary_markdown(sections: Sequence[Section]) -> str:
    out = io.StringIO()
    for index, section in enumerate(sections):
        out.write(f"{'#' if index == 0 else '##'} {section.title}\n\n")
        if section.text:
            out.write(section.text + "\n\n")
        if section.bars:
            widest = max([n for _, n in section.bars] + [1])
            out.write("```\n")
            for label, n in section.bars:
                out.write(f"{label:>8} {'#' * round(40 * n / widest):<40} {n}\n")
            out.write("```\n\n")
        elif section.headers:
            out.write("| " + " | ".join(section.headers) + " |\n")
            out.write("|" + "---|" * len(section.headers) + "\n")
            for row in section.rows:
                out.write("| " + " | ".join(_markdown_cell(cell) for cell in row) + " |\n")
            out.write("\n")
    return out.getvalue()


def _histogram_svg(bars: Sequence[tuple]) -> str:
    width, height, gap = 44, 160, 6
    widest = max([n for _, n in bars] + [1])
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{len(bars) * (width + gap)}" height="{height + 40}" '
             f'role="img" aria-label="score distribution">']
    for i, (label, n) in enumerate(bars):
        h = round(height * n / widest)
        x = i * (width + gap)
        parts.append(f'<rect x="{x}" y="{height - h}" width="{width}" height="{h}" fill="#4a7ab8"/>')
        parts.append(f'<text x="{x + width / 2}" y="{height - h - 4}" text-anchor="middle" font-size="12">{n}</text>')
        parts.append(f'<text x="{x + width / 2}" y="{height + 16}" text-anchor="middle" font-size="11">'
                     f'{html.escape(label)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def summary_html(sections: Sequence[Section]) -> str:
    out = io.StringIO()
    title = html.escape(sections[0].title if sections else "summary")
    out.write(f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}</title>\n"
              "<style>body{font-family:sans-serif;max-width:70em;margin:2em auto}"
              "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .6em;text-align:left}"
              "</style></head><body>\n")
    for index, section in enumerate(sections):
        tag = "h1" if index == 0 else "h2"
        out.write(f"<{tag}>{html.escape(section.title)}</{tag}>\n")
        if section.text:
            out.write(f"<p>{html.escape(section.text)}</p>\n")
        if section.bars:
            out.write(_histogram_svg(section.bars) + "\n")
        elif section.headers:
            out.write("<table><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in section.headers) + "</tr>\n")
            for row in section.rows:
                out.write("<tr>" + "".join(f"<td>{html.escape(cell)}</td>" for cell in row) + "</tr>\n")
            out.write("</table>\n")
    out.write("</body></html>\n")
    return out.getvalue()


def write_reports(layout: grading.Layout, lab: str, outcomes: Sequence[grading.Outcome], table: Table, record: dict) -> List[Scored]:
    """Every report of the run, from @p outcomes (one per student, in order)."""
    titles = record.get("check_titles", {})
    rows = [score(outcome, table) for outcome in outcomes]
    for row in rows:
        write_student_files(layout, lab, row, table, titles)
    write_text_atomically(os.path.join(layout.out, "gradebook.csv"), gradebook_csv(rows, table))
    exports.write_exports(os.path.join(layout.out, "export"), lab, rows, table)
    sections = summary_sections(lab, rows, table, record)
    write_text_atomically(os.path.join(layout.out, "summary.md"), summary_markdown(sections))
    write_text_atomically(os.path.join(layout.out, "summary.html"), summary_html(sections))
    write_text_atomically(os.path.join(layout.out, "run.json"), json.dumps(record, indent=1) + "\n")
    return rows
