"""A review's answers as staff read them: each answer under its question, with word counts and paste flags.

Works on every kind's stored answers (survey: by question key or index; highlight and pricing: lists
of answers by block with their questionKey; preference: the chosen concept and the typed answer).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Answer:
    question: str
    text: str
    words: int
    pasted: bool
    column: str  # a stable key for the CSV column


def _text(value: Any, question: dict[str, Any] | None) -> str:
    labels = {
        str(o.get("value")): o.get("label") or o.get("text")
        for o in (question or {}).get("options") or []
        if isinstance(o, dict)
    }
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


def _one(column: str, question: dict[str, Any] | None, answer: Any) -> Answer:
    item = answer if isinstance(answer, dict) else {"value": answer}
    text = _text(item.get("value"), question)
    if item.get("isOther") and item.get("otherText"):
        text = f"{text} (other: {item['otherText']})"
    typed = isinstance(item.get("value"), str) and not (question or {}).get("options")
    title = (question or {}).get("text") or (question or {}).get("title") or column
    return Answer(
        question=str(title),
        text=text,
        words=words(text) if typed else 0,
        pasted=bool((item.get("pasteMetadata") or {}).get("wasPasted")),
        column=column,
    )


def flatten(
    answers: dict[str, Any], questions: list[dict[str, Any]], content: dict[str, Any] | None = None
) -> list[Answer]:
    by_key = {str(q.get("key")): q for q in questions if isinstance(q, dict) and q.get("key")}
    out: list[Answer] = []
    if "selectedConcept" in answers:  # preference
        concepts = (content or {}).get("images") or (content or {}).get("texts") or []
        names = {c.get("key"): c.get("name") or c.get("text") for c in concepts if isinstance(c, dict)}
        chosen = answers.get("selectedConcept")
        out.append(
            Answer(
                (content or {}).get("initialQuestion") or "Chosen concept",
                str(names.get(chosen) or chosen),
                0,
                False,
                "selectedConcept",
            )
        )
        text = got if isinstance(got := answers.get("answer"), str) else ""
        out.append(
            Answer(
                (content or {}).get("followUpQuestion") or "Why",
                text,
                words(text),
                bool((answers.get("pasteMetadata") or {}).get("wasPasted")),
                "answer",
            )
        )
        return out
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
