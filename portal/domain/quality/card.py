"""A review's evidence card (issue 36, item 2): each signal measured while the test was taken, in plain words, with
this review's value and the test's median for it.

Pure: the signals as stored on the review (portal/domain/taking/signals.py names them), the review's total seconds,
its free-text answers as the flag rules read them (evidence.TextAnswer: the question as shown and the pasted
length), the questions' titles by key, and the test's medians by signal name (the flags job's, 'total' for the whole
test). A median shows only once enough reviews measured the signal (medians.MIN_REVIEWS); otherwise '—'.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from portal.domain.quality.evidence import TextAnswer
from portal.domain.quality.flags import duration
from portal.domain.quality.medians import TOTAL

NONE = "—"


@dataclass(frozen=True)
class Line:
    label: str
    value: str
    median: str = NONE


def _quote(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return f"'{text if len(text) <= limit else text[: limit - 1].rstrip() + '…'}'"


def _times(value: float) -> str:
    n = int(value)
    return "once" if n == 1 else f"{n} times"


def _percent(value: float) -> str:
    return f"{round(value)}%"


# signal prefix -> (label given the part's title, how a value reads); the order is the card's.
_PAGES = {"page": "the page", "home": "the home page"}
KINDS: dict[str, tuple[Callable[[str], str], Callable[[float], str]]] = {
    "precheck": (lambda part: f"Time looking at {_PAGES.get(part, part)} before the questions", duration),
    "scroll": (lambda part: f"How far down {_PAGES.get(part, part)} was scrolled", _percent),
    "step": (
        lambda part: {"choose": "Time choosing a concept", "answer": "Time on the follow-up answer"}.get(
            part, f"Time on step {part}"
        ),
        duration,
    ),
    "question": (lambda title: f"Time on {title}", duration),
    "block": (lambda title: f"Time on area {title}", duration),
    "typing": (lambda title: f"Typing time of {title}", duration),
    "leaves": (lambda title: f"Left the tab or window while answering {title}", _times),
    "away": (lambda title: f"Time away from the tab while answering {title}", duration),
}
_TITLED = frozenset({"question", "typing", "leaves", "away"})


def _number(value: Any) -> float | None:
    """A signal's value, or None for a bool, a non-number, NaN, an infinite or a negative one (never stored:
    portal/domain/taking/signals.py), as the evidence reader does."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        return None
    return float(value)


def _title(kind: str, part: str, titles: Mapping[str, str]) -> str:
    if kind in _TITLED:
        found = titles.get(part) or titles.get(part.rsplit(".", 1)[-1])
        return _quote(found) if found else f"question {part}"
    return part


def lines(
    signals: Mapping[str, Any],
    seconds: float | None,
    texts: Iterable[TextAnswer],
    titles: Mapping[str, str],
    medians: Mapping[str, float],
) -> list[Line]:
    """The card's lines: the whole test's time, each stored signal (in the order of KINDS), then the pasted share
    of each free-text answer something was pasted into."""

    def median(name: str, shown: Callable[[float], str]) -> str:
        found = medians.get(name)
        return shown(found) if found is not None else NONE

    out = []
    if seconds is not None:
        out.append(Line("Time on the whole test", duration(seconds), median(TOTAL, duration)))
    by_kind: dict[str, list[tuple[str, str, float]]] = {}
    for name, raw in signals.items():
        kind, _, part = str(name).partition(":")
        value = _number(raw)
        if kind in KINDS and part and value is not None:
            by_kind.setdefault(kind, []).append((str(name), part, value))
    for kind, (label, shown) in KINDS.items():
        for name, part, value in by_kind.get(kind, []):
            out.append(Line(label(_title(kind, part, titles)), shown(value), median(name, shown)))
    for answer in texts:
        if answer.pasted and answer.text:
            chars = min(answer.pasted, len(answer.text))
            out.append(
                Line(
                    f"Pasted into {_quote(answer.question)}",
                    f"{chars} of {len(answer.text)} characters ({_percent(100 * chars / len(answer.text))})",
                )
            )
    return out
