"""A test's results from its reviews' rows (issue 35): one report read by the results page and both exports.

The service reads the rows with one query (services/admin/results.py) and hands them here with the test's
definition. Everything the page draws and the files hold comes from this one Report, so they always agree:
the time taken, each question's summary (questions.py), a preference test's shares with their 95% interval
and its order table (shares.py), and the answers per highlight area.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from portal.domain.results.questions import NONE, Summary, summarize
from portal.domain.results.shares import OrderCell, Share, chosen_at, order_table, shares
from portal.domain.staff.answers import answer_text, question_title, words
from portal.domain.taking.kinds import preference

Content = Mapping[str, Any]


@dataclass(frozen=True)
class Row:
    """One review as the results read it."""

    review_id: int
    version: int | None  # the version's number
    status: str
    submitted: datetime
    seconds: int | None  # from the session's start to the submission
    answers: Mapping[str, Any]
    order: Sequence[str]  # the concepts in the order shown (a preference test)
    signals: Mapping[str, Any]
    participant: str  # the account id, or the respondent key of a participant without an account
    seniority: tuple[str, ...] = ()
    country: str = ""
    company_size: str = ""
    industries: tuple[str, ...] = ()


@dataclass(frozen=True)
class Slot:
    """A question as the results show it: its key, its text and where it was asked."""

    key: str
    title: str
    question: Mapping[str, Any]
    area: int | None = None  # a highlight or pricing test's area (0-based) the question was asked about


@dataclass(frozen=True)
class QuestionResult:
    slot: Slot
    summary: Summary


@dataclass(frozen=True)
class Concept:
    key: str
    label: str
    url: str


@dataclass(frozen=True)
class PreferenceResult:
    prompt: str
    concepts: list[Concept]
    shares: list[Share]  # per concept, in the test's order (zero-vote concepts kept)
    answered: int
    order: list[dict[str, OrderCell]]  # per shown position: concept key -> shown, chosen, share
    by_position: list[int]  # choices that fell on each position, whatever the concept


@dataclass(frozen=True)
class AreaResult:
    number: int  # 1-based, as the participant saw it
    box: tuple[float, float, float, float]  # left, top, right, bottom in percent of the screenshot
    answered: int  # reviews with an answer about this area
    questions: list[str]  # the keys of its questions


@dataclass(frozen=True)
class Timing:
    median: float | None
    fastest: float | None  # the 25th percentile
    slowest: float | None  # the 75th percentile
    timed: int


@dataclass(frozen=True)
class Report:
    reviews: int
    timing: Timing
    questions: list[QuestionResult] = field(default_factory=list)
    preference: PreferenceResult | None = None
    areas: list[AreaResult] = field(default_factory=list)


def slots(questions: Sequence[Mapping[str, Any]], places: Sequence[tuple[str, int, int | None]] = ()) -> list[Slot]:
    """The questions that take answers, each with its key (its index when it has none) and area."""
    found = []
    for index, question in enumerate(questions):
        if summarize(question, []).shape == NONE:
            continue
        key = str(question.get("key") or index)
        area = places[index][2] if index < len(places) else None
        found.append(Slot(key, question_title(question, key), question, area))
    return found


REASON_TITLE = "Why did you choose it?"


def preference_slots(content: Content) -> list[Slot]:
    """A preference test's two answers as questions: the chosen concept (a choice among the concepts) and the
    reason (typed text), under the test's own wording."""
    options = [{"value": c["key"], "label": c["label"]} for c in preference.concepts(content)]
    custom = str((content.get("preferenceTest") or {}).get("customFollowUpQuestion") or "").strip()
    return [
        Slot(preference.CHOICE, preference.prompt(content), {"type": "single-choice", "options": options}),
        Slot(preference.REASON, custom or REASON_TITLE, {"type": "long-text"}),
    ]


def merged(newest_first: Iterable[list[Slot]]) -> list[Slot]:
    """The slots of several versions, each key once: the newest wording, the older-only questions after."""
    seen: dict[str, Slot] = {}
    for version in newest_first:
        for slot in version:
            seen.setdefault(slot.key, slot)
    return list(seen.values())


def by_question(answers: Mapping[str, Any]) -> dict[str, Any]:
    """A review's answers by question key: a survey's as stored, a highlight test's out of their blocks."""
    out: dict[str, Any] = {}
    for key, value in answers.items():
        if isinstance(value, list) and value and all(isinstance(v, dict) and "questionKey" in v for v in value):
            for item in value:
                out.setdefault(str(item.get("questionKey")), item)
        else:
            out[str(key)] = value
    return out


def timing(seconds: Iterable[int | None]) -> Timing:
    found = sorted(s for s in seconds if s is not None and s >= 0)
    if not found:
        return Timing(None, None, None, 0)
    if len(found) == 1:
        return Timing(float(found[0]), float(found[0]), float(found[0]), 1)
    low, _, high = statistics.quantiles(found, n=4, method="inclusive")
    return Timing(float(statistics.median(found)), low, high, len(found))


def preference_result(content: Content, rows: Sequence[Row]) -> PreferenceResult:
    concepts = [Concept(c["key"], c["label"], c["url"]) for c in preference.concepts(content)]
    keys = [c.key for c in concepts]
    chosen = [(row.order or keys, str(row.answers.get("selectedConcept") or "")) for row in rows]
    counts: dict[str, int] = {}
    for _, choice in chosen:
        if choice in keys:
            counts[choice] = counts.get(choice, 0) + 1
    table = order_table(chosen, keys)
    return PreferenceResult(
        prompt=preference.prompt(content),
        concepts=concepts,
        shares=shares(counts, keys),
        answered=sum(counts.values()),
        order=table,
        by_position=chosen_at(table),
    )


def report(
    rows: Sequence[Row],
    question_slots: Sequence[Slot],
    *,
    content: Content | None = None,
    areas: Sequence[Mapping[str, Any]] = (),
) -> Report:
    """The results of `rows`. `content`: a preference test's definition (None for other kinds); `areas`: the
    highlight areas (`selectedAreas`) of the version shown."""
    indexed = [by_question(row.answers) for row in rows]
    questions = [
        QuestionResult(s, summarize(s.question, (found.get(s.key) for found in indexed))) for s in question_slots
    ]
    area_results = []
    for number, area in enumerate(areas, start=1):
        keys = [s.key for s in question_slots if s.area == number - 1]
        start, end = area.get("from") or [0, 0], area.get("to") or [0, 0]
        area_results.append(
            AreaResult(
                number=number,
                box=(float(start[0]), float(start[1]), float(end[0]), float(end[1])),
                answered=sum(1 for found in indexed if any(_given(found.get(k)) for k in keys)),
                questions=keys,
            )
        )
    return Report(
        reviews=len(rows),
        timing=timing(row.seconds for row in rows),
        questions=questions,
        preference=preference_result(content, rows) if content is not None else None,
        areas=area_results,
    )


def _given(answer: Any) -> bool:
    value = answer.get("value") if isinstance(answer, dict) else answer
    return value not in (None, "", [], {})


# --- One row per review (the exports) -----------------------------------------------------------------------


def signal_columns(rows: Iterable[Row]) -> list[str]:
    """The quality signals met in these reviews, as column names (a nested signal as 'name.part')."""
    seen: dict[str, None] = {}
    for row in rows:
        for name, value in row.signals.items():
            if isinstance(value, Mapping):
                for part in value:
                    seen.setdefault(f"{name}.{part}")
            else:
                seen.setdefault(str(name))
    return list(seen)


def signal_value(signals: Mapping[str, Any], column: str) -> Any:
    name, _, part = column.partition(".")
    value = signals.get(name) if not part or name in signals else signals.get(column)
    if part and isinstance(value, Mapping):
        value = value.get(part)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return value if isinstance(value, (int, float, str)) or value is None else str(value)


def answer_cells(row: Row, question_slots: Sequence[Slot]) -> list[tuple[str, int]]:
    """Each question's answer as text (labels, not keys) and its word count, in the slots' order."""
    found = by_question(row.answers)
    cells = []
    for slot in question_slots:
        answer = found.get(slot.key)
        text = answer_text(slot.question, answer) if answer is not None else ""
        typed = isinstance(answer, dict) and isinstance(answer.get("value"), str) and not slot.question.get("options")
        cells.append((text, words(text) if typed or isinstance(answer, str) else 0))
    return cells
