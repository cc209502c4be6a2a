"""A review's answers as staff read them: each answer under its question, with word counts and paste flags.

Works on every kind's stored answers (survey: by question key or index, a matrix as 'statement: answer' in
labels; highlight and pricing: lists of answers by block with their questionKey; preference: the chosen concept
and the typed answer, under the prompt and the follow-up as the participant read them).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from portal.domain.taking.kinds import preference


@dataclass(frozen=True)
class Answer:
    question: str
    text: str
    words: int
    pasted: bool
    column: str  # a stable key for the CSV column


def _labels(question: dict[str, Any] | None, *lists: str) -> dict[str, str]:
    """Each entry's label by its stored value, from the question's lists named."""
    return {
        str(o.get("value")): str(o.get("label") or o.get("text") or o.get("value"))
        for name in lists
        for o in (question or {}).get(name) or []
        if isinstance(o, dict)
    }


def _matrix(value: dict[str, Any], question: dict[str, Any]) -> str:
    """A matrix answer as 'statement: answer' for each statement, in the question's order (labels, not keys)."""
    statements, answers = _labels(question, "statements"), _labels(question, "answers")
    order = [*statements, *(k for k in value if k not in statements)]
    parts = []
    for key in order:
        if key in value:
            chosen = value[key] if isinstance(value[key], list) else [value[key]]
            parts.append(f"{statements.get(key, key)}: {', '.join(answers.get(str(c), str(c)) for c in chosen)}")
    return "; ".join(parts)


def _text(value: Any, question: dict[str, Any] | None) -> str:
    if isinstance(value, dict) and (question or {}).get("statements"):
        return _matrix(value, question or {})
    labels = _labels(question, "options")
    if isinstance(value, str):
        return labels.get(value) or value
    if isinstance(value, bool):
        return "Yes" if value else "No"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, list):
        return ", ".join(_text(v, question) for v in value)
    if value is None:
        return ""
    return json.dumps(value, ensure_ascii=False)


def words(text: str) -> int:
    return len(text.split())


def question_title(question: Mapping[str, Any] | None, fallback: str) -> str:
    """The question as the participant read it: its text, its title, or an editable question's text elements."""
    found = question or {}
    elements = found.get("textElements")
    typed = " ".join(  # each element is a text or an object with a text 'value' (question_definition.py)
        str(e.get("value") if isinstance(e, dict) else e).strip()
        for e in (elements if isinstance(elements, list) else [])
        if isinstance(e, (dict, str))
    )
    return str(found.get("text") or found.get("title") or typed.strip() or fallback).strip()


def answer_text(question: Mapping[str, Any] | None, answer: Any) -> str:
    """One stored answer as a person reads it: labels, not keys; a matrix as 'statement: answer'; the typed
    'other' text after the choices."""
    item = answer if isinstance(answer, dict) else {"value": answer}
    text = _text(item.get("value"), dict(question) if question is not None else None)
    if item.get("isOther") and item.get("otherText"):
        text = f"{text} (other: {item['otherText']})"
    return text


def _one(column: str, question: dict[str, Any] | None, answer: Any) -> Answer:
    item = answer if isinstance(answer, dict) else {"value": answer}
    text = answer_text(question, item)
    typed = isinstance(item.get("value"), str) and not (question or {}).get("options")
    title = question_title(question, column)
    return Answer(
        question=str(title),
        text=text,
        words=words(text) if typed else 0,
        pasted=bool((item.get("pasteMetadata") or {}).get("wasPasted")),
        column=column,
    )


def _preference(answers: dict[str, Any], content: dict[str, Any] | None, order: list[str]) -> list[Answer]:
    """The chosen concept and the reason, each under the question the participant read: the prompt and the
    follow-up as the test shows them (its custom wording, else the defaults, with the chosen concept's letter
    in the order this participant saw); `content` is the test's preferenceTest, `order` the review's."""
    test = {"preferenceTest": content} if content else None
    chosen = str(answers.get("selectedConcept"))
    labels = {c["key"]: c["label"] for c in preference.concepts(test or {})}
    shown = order or list(labels)
    letter = preference.letter(shown.index(chosen)) if chosen in shown else "?"
    text = got if isinstance(got := answers.get("answer"), str) else ""
    return [
        Answer(
            preference.prompt(test) if test else "Chosen concept",
            labels.get(chosen) or chosen,
            0,
            False,
            "selectedConcept",
        ),
        Answer(
            preference.follow_up(test, letter) if test else "Why",
            text,
            words(text),
            bool((answers.get("pasteMetadata") or {}).get("wasPasted")),
            "answer",
        ),
    ]


def flatten(
    answers: dict[str, Any],
    questions: list[dict[str, Any]],
    content: dict[str, Any] | None = None,
    order: list[str] | None = None,
) -> list[Answer]:
    by_key = {str(q.get("key")): q for q in questions if isinstance(q, dict) and q.get("key")}
    out: list[Answer] = []
    if "selectedConcept" in answers:  # preference
        return _preference(answers, content, order or [])
    for key, value in answers.items():
        if isinstance(value, list) and all(isinstance(v, dict) and "questionKey" in v for v in value):
            for index, item in enumerate(value):
                qkey = str(item.get("questionKey"))
                out.append(_one(f"{key}.{qkey}" if qkey else f"{key}.{index}", by_key.get(qkey), item))
            continue
        question = by_key.get(str(key))
        if question is None and str(key).isdigit() and int(key) < len(questions):
            question = questions[int(key)]
        out.append(_one(str(key), question, value))
    return out
