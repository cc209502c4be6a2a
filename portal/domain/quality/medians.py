"""The test's median per signal (issue 36): the total time and the seconds on each question or block.

A median counts only once MIN_REVIEWS reviews measured the signal: with fewer, no flag compares against it.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from portal.domain.quality.evidence import Evidence

TOTAL = "total"
MIN_REVIEWS = 5


@dataclass(frozen=True)
class Median:
    value: float
    reviews: int  # how many reviews measured the signal


def medians(evidence: Iterable[Evidence], minimum: int = MIN_REVIEWS) -> dict[str, Median]:
    """'total' and every 'question:<key>' / 'block:<key>' signal measured by at least `minimum` reviews."""
    found: dict[str, list[float]] = {}
    for item in evidence:
        if item.seconds is not None and item.seconds >= 0:
            found.setdefault(TOTAL, []).append(item.seconds)
        for name, seconds in item.questions.items():
            found.setdefault(name, []).append(seconds)
    return {
        name: Median(float(statistics.median(values)), len(values))
        for name, values in found.items()
        if len(values) >= minimum
    }


def median_of(table: Mapping[str, Median], name: str) -> float | None:
    found = table.get(name)
    return found.value if found is not None else None


def of_signals(
    readings: Iterable[tuple[float | None, Mapping[str, object]]], minimum: int = MIN_REVIEWS
) -> dict[str, float]:
    """The median of 'total' (the whole test's seconds) and of every numeric signal (any name: the evidence card's),
    each over the reviews that measured it, when at least `minimum` did. `readings`: (total seconds, signals).
    The browser reports leaving the tab only when it happened: a review whose typing of an answer was measured and
    that has no 'leaves:'/'away:' of it never left (0)."""
    found: dict[str, list[float]] = {}
    for seconds, signals in readings:
        if seconds is not None and seconds >= 0:
            found.setdefault(TOTAL, []).append(seconds)
        typed = [str(n)[len("typing:") :] for n in signals if str(n).startswith("typing:")]
        never_left = {f"{kind}:{key}": 0 for key in typed for kind in ("leaves", "away")}
        for name, value in {**never_left, **signals}.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value >= 0:
                found.setdefault(str(name), []).append(float(value))
    return {name: float(statistics.median(v)) for name, v in found.items() if len(v) >= minimum}
