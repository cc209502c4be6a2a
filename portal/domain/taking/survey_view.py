"""How a survey question is shown: its text, its options in the participant's order, hints.

Pure functions over the stored definition (test-taking spec sections 2, 3 and 5). The result is
a flat dict the page renders; nothing in it is secret (surveys carry no correct answers).
Option order is shuffled when `isRandomized` is set, with a seed per participant and test so the
order stays the same across reloads, tabs and devices.
"""

from __future__ import annotations

import random
from typing import Any

from portal.domain.taking.survey_answers import (
    LIMITABLE_TEXT,
    MULTI_CHOICE,
    SINGLE_CHOICE,
    TEXT,
    choice_limits,
    is_limited,
    limited_hint,
    number_limits,
)

WELCOME, QUESTIONS, END, THANK_YOU = "welcome", "questions", "end", "thank-you"
STEPS = (WELCOME, QUESTIONS, END, THANK_YOU)
START_LABEL = "Start survey"
AGREEMENTS = (
    "I will do my best to answer every question thoughtfully.",
    "I understand that AI-generated responses will be rejected.",
    "I will not download, copy or share the survey content.",
    "I am responsible for my own tax obligations.",
)
AGREEMENTS_INTRO = "Before you start, please agree to the following:"


def welcome_texts(welcome: Any, name: str) -> tuple[str, str, str]:
    """A survey's welcome page: (title, description, start button label), from its definition's
    `welcomePage` (the test's name when it has no title)."""
    welcome = welcome if isinstance(welcome, dict) else {}
    return (
        str(welcome.get("title") or name),
        str(welcome.get("description") or ""),
        str(welcome.get("buttonLabel") or START_LABEL),
    )


OVERALL_QUESTIONS, PERSONAL_INFO = "Overall questions", "Personal info"
OVERALL_HINT = "These questions are about the whole page."
MESSAGING_BANNER = (
    "Please make sure to comment on messaging and content. Don't comment on visual design (e.g. colors, shapes)."
)
BACK_TO_QUESTIONS = "Back to Questions"
SUBMITTING = "Submitting..."
OTHER_VALUE = "__other__"
OTHER_LABEL = "Other"
TEXT_PLACEHOLDER = "Type your answer here..."
EMBED_WIDTH, EMBED_HEIGHT = 600, 400


def question_text(question: dict[str, Any]) -> str:
    """The question's text; editable variants join their textElements' values."""
    elements = question.get("textElements")
    if isinstance(elements, list) and elements:
        parts = [e.get("value") if isinstance(e, dict) else e for e in elements]
        return " ".join(str(p).strip() for p in parts if isinstance(p, str) and p.strip())
    text = question.get("text")
    return text if isinstance(text, str) else ""


def _items(question: dict[str, Any], field: str) -> list[dict[str, str]]:
    result = []
    for item in question.get(field) or []:
        if isinstance(item, dict) and "value" in item:
            result.append({"value": str(item["value"]), "label": str(item.get("label", item["value"]))})
    return result


def ordered_options(question: dict[str, Any], seed: str) -> list[dict[str, str]]:
    """The options in the order this participant sees them (shuffled when isRandomized)."""
    options = _items(question, "options")
    if question.get("isRandomized"):
        random.Random(f"{seed}:{question.get('key')}").shuffle(options)
    return options


def choice_limit_hint(question: dict[str, Any]) -> str:
    """A hint under a multi-choice question with a choice limit ('' without one)."""
    low, high = choice_limits(question)
    if low is not None and high is not None:
        if low == high:
            return f"Select {low} option{'s' if low != 1 else ''}."
        return f"Select between {low} and {high} options."
    if low is not None:
        return f"Select at least {low} option{'s' if low != 1 else ''}."
    if high is not None:
        return f"Select up to {high} option{'s' if high != 1 else ''}."
    return ""


def _number_hint(question: dict[str, Any]) -> str:
    low, high = number_limits(question)
    if question.get("numberType") == "percentage":
        return f"A percentage from {low} to {high}."
    return f"A number up to {high}."


def question_view(question: dict[str, Any], index: int, seed: str) -> dict[str, Any]:
    """Everything the question screen shows, as plain JSON-able values."""
    qtype = str(question.get("type") or "")
    hint = got if isinstance(got := question.get("hint"), str) else ""
    if qtype in LIMITABLE_TEXT and is_limited(question):
        hint = limited_hint(question) or hint
    elif qtype in MULTI_CHOICE and not hint:
        hint = choice_limit_hint(question)
    elif qtype == "number" and not hint:
        hint = _number_hint(question)
    labels = got if isinstance(got := question.get("labels"), dict) else {}
    images = [i for i in (question.get("images") or []) if isinstance(i, str)]
    embed = got if isinstance(got := question.get("embeddedLink"), str) else ""
    kind = qtype
    if qtype in SINGLE_CHOICE:
        kind = "single"
    elif qtype in MULTI_CHOICE:
        kind = "multi"
    elif qtype in ("long-text", "editable-open-ended"):
        kind = "long"
    elif qtype == "short-text":
        kind = "short"
    return {
        "index": index,
        "key": str(question.get("key") or ""),
        "type": qtype,
        "kind": kind,  # single | multi | short | long | number | rank | rating | matrix | description
        "text": question_text(question),
        "description": got if isinstance(got := question.get("description"), str) else "",
        "images": images,
        "embed": embed if embed.startswith("https://") else "",
        "required": bool(question.get("isRequired")) and qtype != "description",
        "options": ordered_options(question, seed),
        "withOther": bool(question.get("withOtherOption")) and (qtype in SINGLE_CHOICE or qtype in MULTI_CHOICE),
        "hint": hint,
        "scales": _items(question, "scales"),
        "low": str(labels.get("low") or ""),
        "high": str(labels.get("high") or ""),
        "statements": _items(question, "statements"),
        "columns": _items(question, "answers"),
        "multiple": bool(question.get("allowMultipleAnswers")),
        "percentage": question.get("numberType") == "percentage",
    }


def progress_label(index: int, total: int) -> str:
    """'Question N/total' (N counts from 1)."""
    return f"Question {index + 1}/{total}"


def rank_order(options: list[dict[str, str]], ranked: list[str]) -> list[dict[str, str]]:
    """Ranked options first in their rank, then the rest in shown order."""
    by_value = {o["value"]: o for o in options}
    first = [by_value[v] for v in ranked if v in by_value]
    return first + [o for o in options if o["value"] not in ranked]


def rank_move(options: list[dict[str, str]], ranked: list[str], value: str, offset: int) -> list[str]:
    """The full ranking after moving `value` by `offset` places (-1 up, +1 down)."""
    order = [o["value"] for o in rank_order(options, ranked)]
    if value not in order or offset not in (-1, 1):
        return list(ranked) if ranked else order
    i = order.index(value)
    j = max(0, min(len(order) - 1, i + offset))
    order[i], order[j] = order[j], order[i]
    return order


def toggle(values: list[str], value: str) -> list[str]:
    return [v for v in values if v != value] if value in values else [*values, value]


def matrix_pick(current: dict[str, list[str]], statement: str, answer: str, multiple: bool) -> dict[str, list[str]]:
    """A matrix cell clicked: toggles with allowMultipleAnswers, else the row's one answer."""
    result = {k: list(v) for k, v in current.items()}
    row = result.get(statement, [])
    result[statement] = toggle(row, answer) if multiple else [answer]
    if not result[statement]:
        result.pop(statement)
    return result


def display_values(
    question: dict[str, Any], answer: dict[str, Any], shown_options: list[dict[str, str]]
) -> dict[str, Any]:
    """What each input of the question screen shows for this answer (the survey state's display vars)."""
    value = answer.get("value")
    qtype = question.get("type")
    single = qtype in SINGLE_CHOICE
    multi = qtype in MULTI_CHOICE
    chosen = [v for v in value if isinstance(v, str)] if multi and isinstance(value, list) else []
    if multi and answer.get("isOther"):
        chosen.append(OTHER_VALUE)
    text = value if isinstance(value, str) and qtype in TEXT else ""
    ranked = [v for v in value if isinstance(v, str)] if qtype == "rank" and isinstance(value, list) else []
    number = "" if value is None or qtype != "number" else (f"{value:g}" if isinstance(value, float) else str(value))
    return {
        "single_value": OTHER_VALUE
        if single and answer.get("isOther")
        else (value if single and isinstance(value, str) else ""),
        "other_text": (value if isinstance(value, str) else "") if single else str(answer.get("otherText") or ""),
        "multi_values": chosen,
        "text_value": text,
        "word_count": len(text.split()),
        "number_text": number,
        "rank_started": bool(ranked),
        "rank_options": rank_order(shown_options, ranked) if qtype == "rank" else [],
        "rating_value": "" if value is None or qtype != "rating" else str(value),
        "matrix_value": value if isinstance(value, dict) and qtype == "matrix" else {},
    }


def step_of(step: Any) -> str:
    """The URL's step word; anything unknown is the welcome step."""
    return step if isinstance(step, str) and step in STEPS else WELCOME
