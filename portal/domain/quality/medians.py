"""The test's median per signal (issue 36): the total time and the seconds on each question or block.

A median counts only once MIN_REVIEWS reviews measured the signal: with fewer, no flag compares against it.
"""

from __future__ import annotations

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
