"""'Report a problem' while taking a test (issue 38, item 4): the categories, the limits and the rule that pauses a
test, with no I/O.

A test pauses itself when enough different people report a problem that staff have not dealt with yet:
2 when 15 or fewer take part, 15% (rounded) up to 134, 20 above (the three meet: 15% of 16 rounds to 2, of 134 to 20).
Who takes part is the test's participant limit, or, without one, how many have started it. While it is paused nobody
submits, a started session's answers are kept, and its clock stops: staff resuming it move every open session's
deadline on by the time it was paused. Staff may instead close it: each reporter is paid the share of the test's
time they had used when it paused (pro rata), never more than the test pays.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

PAUSED = "paused"  # the test's status while paused (portal/domain/reference_data.py TEST_STATUSES)
CLOSED = "completed"  # the status a test closed after reports takes
TEXT_MAX = 2000


@dataclass(frozen=True)
class Category:
    key: str
    label: str


CATEGORIES: tuple[Category, ...] = (
    Category("page", "The page will not load"),
    Category("question", "A question is unclear or wrong"),
    Category("timer", "Timer problem"),
    Category("other", "Something else"),
)
LABELS: dict[str, str] = {c.key: c.label for c in CATEGORIES}

BUTTON = "Report a problem"
TITLE = "Report a problem"
INTRO = "Tell us what went wrong. Your answers so far are kept."
CATEGORY_REQUIRED = "Choose what kind of problem it is."
TEXT_REQUIRED = "Describe the problem in a few words."
TEXT_TOO_LONG = f"Please keep it under {TEXT_MAX:,} characters."
NOT_TAKING = "You can report a problem only on a test you are taking."
NOT_IN_PREVIEW = "Reports are not sent from a preview."
THANKS = "Thank you: we received your report and will look into it."
PAUSED_NOW = "Thank you: the test is paused while we look into it. Your answers are kept and your time has stopped."
NOT_PAUSED = "This test is not paused."
NOT_FOUND = "This test does not exist."


def pause_threshold(taking: int) -> int:
    """How many different reporters pause a test that `taking` people take part in."""
    if taking <= 15:
        return 2
    if taking <= 134:
        return max(2, round(taking * 0.15))
    return 20


def should_pause(reporters: int, taking: int) -> bool:
    return reporters >= pause_threshold(max(taking, reporters))


def clean(category: object, text: object) -> tuple[str, str, dict[str, str]]:
    """(category, text, {}) or ('', '', {field: message})."""
    problems: dict[str, str] = {}
    if not isinstance(category, str) or category not in LABELS:
        problems["category"] = CATEGORY_REQUIRED
    words = text.strip() if isinstance(text, str) else ""
    if not words:
        problems["text"] = TEXT_REQUIRED
    elif len(words) > TEXT_MAX:
        problems["text"] = TEXT_TOO_LONG
    if problems:
        return "", "", problems
    return str(category), words, {}


def pro_rata_cents(pays_cents: int, started_at: datetime, stopped_at: datetime, session_seconds: int) -> int:
    """The share of `pays_cents` for the time used from the start to when the test paused (at least 1 cent)."""
    if pays_cents <= 0 or session_seconds <= 0:
        return 0
    used = max(0.0, (stopped_at - started_at).total_seconds())
    share = min(1.0, used / session_seconds)
    return max(1, min(pays_cents, math.ceil(pays_cents * share)))


def pause_length_seconds(paused_at: datetime | None, now: datetime) -> float:
    return max(0.0, (now - paused_at).total_seconds()) if paused_at else 0.0
