"""The points table of a lab, and the points a submission's checks earn.

A table is a text file, one check per line:

    # check          points  full_at  zero_at
    step1.correct        30
    step1.speed          20     1.25     3.00

A check with only points earns them when it passes. A timed check (full_at and
zero_at given) earns its points from the student/reference time ratio the
lab's grader measured: all of them at full_at or below, none at zero_at or
above, and in between in proportion. A check that did not run (a blocked step,
a crash before it) earns nothing; checks that did run keep what they earned.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Dict, Iterable, Optional


class PointsError(Exception):
    """A points table that cannot be used; the message names the file and line."""


@dataclass(frozen=True)
class Rule:
    check: str
    points: float
    full_at: Optional[float] = None
    zero_at: Optional[float] = None

    @property
    def timed(self) -> bool:
        return self.full_at is not None

    def describe(self) -> str:
        if not self.timed:
            return "when it passes"
        return f"full at <= {self.full_at:g}x the reference's time, none at >= {self.zero_at:g}x"


Table = Dict[str, Rule]
_CHECK_ID = re.compile(r"^step[0-9]+\.[A-Za-z0-9_]+$")


def read_table(path: str) -> Table:
    try:
        with open(path, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except OSError as error:
        raise PointsError(f"cannot read the points table {path}: {error.strerror}") from None
    table: Table = {}
    for number, line in enumerate(lines, 1):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        where = f"{path}:{number}"
        if not _CHECK_ID.match(words[0]):
            raise PointsError(f"{where}: '{words[0]}' is not a check id such as step1.correct")
        if len(words) not in (2, 4):
            raise PointsError(f"{where}: write 'check points' or 'check points full_at zero_at'")
        try:
            numbers = [float(word) for word in words[1:]]
        except ValueError:
            raise PointsError(f"{where}: points, full_at and zero_at must be numbers") from None
        if not all(math.isfinite(value) and value >= 0 for value in numbers):
            raise PointsError(f"{where}: points, full_at and zero_at must be 0 or more")
        if len(numbers) == 3 and not (1.0 <= numbers[1] < numbers[2]):
            raise PointsError(f"{where}: need 1 <= full_at < zero_at (times the reference's time)")
        if words[0] in table:
            raise PointsError(f"{where}: {words[0]} appears twice")
        table[words[0]] = Rule(words[0], *numbers)
    if not table:
        raise PointsError(f"{path}: no checks in the points table")
    return table


def with_overrides(defaults: Table, overrides: Table, source: str) -> Table:
    """@p defaults with the checks @p overrides names replaced."""
    unknown = sorted(set(overrides) - set(defaults))
    if unknown:
        raise PointsError(f"{source}: no such check in this lab: {', '.join(unknown)} "
                          f"(its checks: {', '.join(defaults)})")
    return {check: overrides.get(check, rule) for check, rule in defaults.items()}


def check_covers(table: Table, check_ids: Iterable[str], source: str) -> None:
    """Refuses a table that does not give points to exactly the lab's checks."""
    ids = list(check_ids)
    missing = [check for check in ids if check not in table]
    extra = [check for check in table if check not in ids]
    if missing or extra:
        parts = []
        if missing:
            parts.append(f"no points for {', '.join(missing)}")
        if extra:
            parts.append(f"the lab has no check {', '.join(extra)}")
        raise PointsError(f"{source} does not match the lab's grader: {'; '.join(parts)}")


def earned(rule: Rule, check: Optional[dict]) -> float:
    """Points @p rule gives for @p check (a check of the lab grader's results, or None if it did not run)."""
    if check is None:
        return 0.0
    if not rule.timed:
        return rule.points if check.get("verdict") == "pass" else 0.0
    ratio = check.get("ratio")
    if not isinstance(ratio, (int, float)) or not math.isfinite(ratio) or ratio <= 0:
        return 0.0
    share = (rule.zero_at - ratio) / (rule.zero_at - rule.full_at)
    return round(rule.points * min(1.0, max(0.0, share)), 2)


def total(table: Table) -> float:
    return sum(rule.points for rule in table.values())


def format_points(value: float) -> str:
    """Points as the gradebook writes them: 85.7, 100, 12.25."""
    return f"{value:.2f}".rstrip("0").rstrip(".")
