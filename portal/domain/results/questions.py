"""What the answers to one question add up to, by the shape its type calls for (issue 35's results page).

Every question type has one shape (SHAPE_OF, checked against the spec's list of types): choice shares with
counts and their 95% interval, a rating's mean and distribution, a number's summary, a ranking's mean position,
a matrix's table, typed answers with their word counts, or nothing (a text-and-media block). Each summary is
computed from the answers as stored (`{type, value, isOther, otherText, ...}` by question), so the page and the
export read the same numbers.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from portal.domain.reference_data import QUESTION_TYPES
from portal.domain.results.shares import Share, shares, wilson
from portal.domain.staff.answers import words

CHOICE, MULTI, RATING, NUMBER, RANK, MATRIX, TEXT, NONE = (
    "choice",
    "multi",
    "rating",
    "number",
    "rank",
    "matrix",
    "text",
    "none",
)
SHAPE_OF: dict[str, str] = {
    "single-choice": CHOICE,
    "editable-single-choice": CHOICE,
    "multi-choice": MULTI,
    "editable-multi-choice": MULTI,
    "short-text": TEXT,
    "long-text": TEXT,
    "editable-open-ended": TEXT,
    "number": NUMBER,
    "rank": RANK,
    "rating": RATING,
    "description": NONE,
    "matrix": MATRIX,
}
assert set(SHAPE_OF) == set(QUESTION_TYPES), "one summary shape per question type"
OTHER = "__other__"


@dataclass(frozen=True)
class Summary:
    shape: str
    answered: int  # reviews with an answer to it
    shares: list[Share] = field(default_factory=list)  # choice, multi (each option; 'other' last when used)
    labels: dict[str, str] = field(default_factory=dict)  # option / scale / statement value -> label
    mean: float | None = None  # rating, number
    median: float | None = None  # number
    low: float | None = None  # number: the smallest
    high: float | None = None  # number: the largest
    positions: dict[str, float] = field(default_factory=dict)  # rank: option -> mean position (1 = first)
    table: dict[str, dict[str, int]] = field(default_factory=dict)  # matrix: statement -> answer -> count
    texts: list[tuple[str, int]] = field(default_factory=list)  # text: (answer, words), in the order given


def _entries(question: Mapping[str, Any], name: str) -> list[tuple[str, str]]:
    found = question.get(name)
    return [
        (str(o.get("value")), str(o.get("label") or o.get("value")))
        for o in (found if isinstance(found, list) else [])
        if isinstance(o, dict) and o.get("value") is not None
    ]


def _value(answer: Any) -> Any:
    return answer.get("value") if isinstance(answer, dict) else answer


def _number(value: Any) -> float | None:
    """A number answer as a float: a number, or the numeric text the answer rules also accept ("25000")."""
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if value == value and abs(value) != float("inf") else None


def _typed_other(answer: Any) -> bool:
    """A multi choice's 'Other' with its text typed: the text is `otherText`, beside the options chosen (if any)."""
    text = answer.get("otherText") if isinstance(answer, dict) and answer.get("isOther") else None
    return isinstance(text, str) and bool(text.strip())


def summarize(question: Mapping[str, Any], answers: Iterable[Any]) -> Summary:
    """The summary of one question's answers (one per review that has it; None or missing ones are skipped)."""
    shape = SHAPE_OF.get(str(question.get("type")), NONE)
    given = [a for a in answers if _value(a) not in (None, "", [], {}) or (shape == MULTI and _typed_other(a))]
    if shape in (CHOICE, MULTI):
        return _choices(question, given, shape)
    if shape == RATING:
        return _rating(question, given)
    if shape == NUMBER:
        return _numbers(given)
    if shape == RANK:
        return _rank(question, given)
    if shape == MATRIX:
        return _matrix(question, given)
    if shape == TEXT:
        texts = [(v.strip(), words(v)) for a in given if isinstance(v := _value(a), str) and v.strip()]
        return Summary(TEXT, len(texts), texts=texts)
    return Summary(NONE, 0)


def _choices(question: Mapping[str, Any], given: Sequence[Any], shape: str) -> Summary:
    options = _entries(question, "options")
    labels = dict(options)
    counts: Counter[str] = Counter()
    for answer in given:
        chosen = _value(answer)
        # A single choice's 'Other' is its typed value; a multi choice's comes beside its list (maybe empty).
        picked = chosen if isinstance(chosen, list) else [chosen] if chosen not in (None, "") else []
        for value in picked:
            key = str(value)
            counts[key if key in labels else OTHER] += 1
        if shape == MULTI and _typed_other(answer):
            counts[OTHER] += 1
    keys = [value for value, _ in options] + ([OTHER] if counts[OTHER] else [])
    if counts[OTHER]:
        labels[OTHER] = "Other"
    found = shares(counts, keys)
    if shape == MULTI:  # a share of the people who answered (several choices each), not of the choices made
        found = [
            Share(s.key, s.count, s.count / len(given) if given else 0.0, wilson(s.count, len(given))) for s in found
        ]
    return Summary(shape, len(given), shares=found, labels=labels)


def _rating(question: Mapping[str, Any], given: Sequence[Any]) -> Summary:
    scale = _entries(question, "scales")
    values = [n for a in given if (n := _number(_value(a))) is not None]
    counts = Counter(str(int(v)) if v.is_integer() else str(v) for v in values)
    keys = [value for value, _ in scale] or sorted(counts, key=float)
    return Summary(
        RATING,
        len(values),
        shares=shares(counts, keys),
        labels=dict(scale),
        mean=statistics.fmean(values) if values else None,
    )


def _numbers(given: Sequence[Any]) -> Summary:
    values = [n for a in given if (n := _number(_value(a))) is not None]
    if not values:
        return Summary(NUMBER, 0)
    return Summary(
        NUMBER,
        len(values),
        mean=statistics.fmean(values),
        median=statistics.median(values),
        low=min(values),
        high=max(values),
    )


def _rank(question: Mapping[str, Any], given: Sequence[Any]) -> Summary:
    options = _entries(question, "options")
    places: dict[str, list[int]] = {value: [] for value, _ in options}
    answered = 0
    for answer in given:
        order = _value(answer)
        if not isinstance(order, list):
            continue
        answered += 1
        for position, value in enumerate(order, start=1):
            if str(value) in places:
                places[str(value)].append(position)
    return Summary(
        RANK,
        answered,
        labels=dict(options),
        positions={k: statistics.fmean(v) for k, v in places.items() if v},
    )


def _matrix(question: Mapping[str, Any], given: Sequence[Any]) -> Summary:
    statements, columns = _entries(question, "statements"), _entries(question, "answers")
    table = {s: dict.fromkeys((c for c, _ in columns), 0) for s, _ in statements}
    answered = 0
    for answer in given:
        value = _value(answer)
        if not isinstance(value, dict):
            continue
        answered += 1
        for statement, chosen in value.items():
            row = table.get(str(statement))
            for column in chosen if isinstance(chosen, list) else [chosen]:
                if row is not None and str(column) in row:
                    row[str(column)] += 1
    return Summary(MATRIX, answered, labels=dict(statements) | dict(columns), table=table)
