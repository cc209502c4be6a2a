"""A review's evidence as the flag rules read it (issue 36), and its reader from a stored review.

Pure: the reader takes what a Review row holds (`answers`, `signals`), the questions of the version it was given
on, its total seconds and the participant's earlier decisions. A signal that is missing is "not measured" (None),
never 0. The signals read: 'question:<key>' and 'block:<key>' (seconds on a question or block), 'typing:<key>'
(seconds of typing a free-text answer), 'leaves:<key>' and 'away:<key>' (leaving the tab while on it, count and
seconds); a highlight test's keys are '<block key>.<questionKey>'. The pasted length is on the answer
(`pasteMetadata.pastedLength`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from portal.domain.staff.answers import question_title
from portal.domain.taking.kinds import preference
from portal.domain.taking.survey_answers import MIN_WORDS, TEXT, is_limited


@dataclass(frozen=True)
class TextAnswer:
    """One free-text answer with what was measured while it was written."""

    key: str  # the signal key: the question key (a highlight test's '<block key>.<questionKey>')
    question: str  # the question as the participant read it
    text: str
    pasted: int = 0  # pasteMetadata.pastedLength (0: nothing pasted)
    typing: float | None = None  # seconds of typing; None: not measured
    leaves: int | None = None  # times the tab or window was left on this answer; None: not measured
    away: float | None = None  # seconds away in total; None: not measured
    min_words: int | None = None  # the word minimum when the answer is limited


@dataclass(frozen=True)
class Grid:
    """A matrix's rows, or a run of rating questions on one scale: the column chosen on each answered row."""

    key: str
    question: str
    chosen: tuple[str, ...]
    ratings: bool = False  # rating questions on one scale (not one matrix)
    seconds: float | None = None  # seconds on the matrix's question ('question:<key>'); None: not measured


@dataclass(frozen=True)
class History:
    """The participant's decisions on earlier reviews (other tests)."""

    approved: int = 0
    excluded: int = 0
    rejected: int = 0


@dataclass(frozen=True)
class Evidence:
    review_id: int
    seconds: float | None  # the session's start to the submission; None: unknown
    questions: Mapping[str, float] = field(default_factory=dict)  # 'question:<key>' / 'block:<key>' seconds
    texts: tuple[TextAnswer, ...] = ()
    grids: tuple[Grid, ...] = ()
    history: History = History()


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value or value < 0:
        return None
    return float(value)


def _pasted(answer: Mapping[str, Any]) -> int:
    meta = answer.get("pasteMetadata")
    if not isinstance(meta, Mapping) or not meta.get("wasPasted"):
        return 0
    length = meta.get("pastedLength")
    return length if isinstance(length, int) and not isinstance(length, bool) and length > 0 else 0


def _text_answer(
    key: str, title: str, answer: Mapping[str, Any], signals: Mapping[str, Any], limited: bool
) -> TextAnswer:
    leaves = _number(signals.get(f"leaves:{key}"))
    return TextAnswer(
        key=key,
        question=title,
        text=str(answer.get("value") or ""),
        pasted=_pasted(answer),
        typing=_number(signals.get(f"typing:{key}")),
        leaves=None if leaves is None else int(leaves),
        away=_number(signals.get(f"away:{key}")),
        min_words=MIN_WORDS if limited else None,
    )


def _matrix(key: str, title: str, question: Mapping[str, Any], value: Any, seconds: float | None) -> Grid | None:
    if not isinstance(value, Mapping) or question.get("allowMultipleAnswers"):
        return None
    order = [str(s.get("value")) for s in question.get("statements") or [] if isinstance(s, Mapping)]
    chosen = []
    for statement in order or list(value):
        got = value.get(statement)
        picked = got if isinstance(got, list) else [got] if got is not None else []
        if len(picked) == 1:
            chosen.append(str(picked[0]))
    return Grid(key, title, tuple(chosen), seconds=seconds)


def _scale(question: Mapping[str, Any]) -> tuple[str, ...]:
    return tuple(str(s.get("value")) for s in question.get("scales") or [] if isinstance(s, Mapping))


def _entries(answers: Mapping[str, Any]) -> list[tuple[str, str, Any]]:
    """(signal key, question key, answer) of each stored answer: a survey's by key, a highlight test's out of
    its blocks ('<block>.<questionKey>'), a preference test's reason under 'answer'."""
    out: list[tuple[str, str, Any]] = []
    for key, value in answers.items():
        if isinstance(value, list) and value and all(isinstance(v, Mapping) and "questionKey" in v for v in value):
            for item in value:
                qkey = str(item.get("questionKey"))
                out.append((f"{key}.{qkey}", qkey, item))
        else:
            out.append((str(key), str(key), value))
    return out


def evidence_of(
    review_id: int,
    answers: Mapping[str, Any],
    signals: Mapping[str, Any],
    questions: Sequence[Mapping[str, Any]],
    *,
    seconds: float | None,
    history: History = History(),
    follow_up: str = "Why did you choose it?",
) -> Evidence:
    """The evidence of one stored review. `questions`: the version's questions (a kind's `questions(content)`);
    `follow_up`: a preference test's follow-up question as shown (its reason needs the word minimum unless the
    stored answers say `isLimited: false`)."""
    by_key = {str(q.get("key")): q for q in questions if isinstance(q, Mapping) and q.get("key")}
    texts: list[TextAnswer] = []
    grids: list[Grid] = []
    ratings: dict[tuple[str, ...], list[tuple[int, str, str]]] = {}
    order = {key: i for i, key in enumerate(by_key)}
    if preference.CHOICE in answers:
        reason = answers.get(preference.REASON)
        item = {"value": reason if isinstance(reason, str) else "", "pasteMetadata": answers.get("pasteMetadata")}
        if item["value"]:
            limited = answers.get("isLimited") is not False
            texts.append(_text_answer(preference.REASON, follow_up, item, signals, limited))
    else:
        for signal_key, qkey, raw in _entries(answers):
            question = by_key.get(qkey)
            if question is None and qkey.isdigit() and int(qkey) < len(questions):
                question = questions[int(qkey)]
            if question is None:
                continue
            answer = raw if isinstance(raw, Mapping) else {"value": raw}
            qtype = question.get("type")
            title = question_title(question, qkey)
            value = answer.get("value")
            if qtype in TEXT and isinstance(value, str):
                texts.append(_text_answer(signal_key, title, answer, signals, is_limited(dict(question))))
            elif qtype == "matrix":
                grid = _matrix(signal_key, title, question, value, _number(signals.get(f"question:{signal_key}")))
                if grid is not None:
                    grids.append(grid)
            elif qtype == "rating" and value is not None and not isinstance(value, (list, dict)):
                ratings.setdefault(_scale(question), []).append((order.get(qkey, len(order)), title, str(value)))
    for found in ratings.values():  # rating questions on one scale read as one grid
        found.sort()
        grids.append(Grid("ratings", f"{len(found)} rating questions", tuple(v for _, _, v in found), True))
    timed = {}
    for name, raw_seconds in signals.items():
        seconds_on = _number(raw_seconds)
        if str(name).startswith(("question:", "block:")) and seconds_on is not None:
            timed[str(name)] = seconds_on
    return Evidence(review_id, seconds, timed, tuple(texts), tuple(grids), history)
