"""Survey answer rules (test-taking spec, section 5): defaults and validation per question type.

Pure functions over a question definition (see `question_definition.py`) and an answer
object `{type, value, isOther, otherText, isLimited, ...}`. The same function gives the live
message in the browser and refuses a bad answer on the server at submission.

Answer values by type:
- single choice: `value` = an option value; with `isOther: true`, `value` is the typed 'other' text.
- multi choice: `value` = list of option values; with `isOther: true` the typed text is `otherText`.
- short/long text, open-ended: `value` = text. number: a number (or numeric text), None when empty.
- rank: ordered list of option values. rating: one of the scale values.
- matrix: `value` = {statement value: [answer value, ...]}.
"""

from __future__ import annotations

import math
from typing import Any

SINGLE_CHOICE = frozenset({"single-choice", "editable-single-choice"})
MULTI_CHOICE = frozenset({"multi-choice", "editable-multi-choice"})
TEXT = frozenset({"short-text", "long-text", "editable-open-ended"})
LIMITABLE_TEXT = frozenset({"long-text", "editable-open-ended"})

MIN_WORDS = 15
MAX_TEXT_LENGTH = 10000
MAX_OTHER_LENGTH = 100
MIN_OTHER_LENGTH = 2
NUMBER_MAX = 999999
NUMBER_MIN = -(2**53 - 1)  # the minimum safe integer
PERCENT_MIN = 0
PERCENT_MAX = 100

REQUIRED = "Answer is required"
TOO_SHORT = "Your answer is too short, please make it at least 15 words."
LIMITED_HINT = "Your answer should be at least 15 words long"
MATRIX_ROWS = "Answer is required for all statements in the row"
INVALID_NUMBER = "Invalid number"
OTHER_TOO_SHORT = "Please enter at least 2 characters"
OTHER_TOO_LONG = "The 'Other' answer can be at most 100 characters"
TEXT_TOO_LONG = "Your answer can be at most 10000 characters"
RATING_NOT_ON_SCALE = "Please choose one of the values on the scale"
ONE_PER_STATEMENT = "Please choose one answer per statement"
DUPLICATE_RANK = "Each option can be ranked only once"
WRONG_TYPE = "This answer does not match the question"
INVALID_VALUE = "Invalid answer"
SUMMARY = "Please check your answers. Some fields contain invalid values."


def number_too_high(limit: int) -> str:
    return f"Number must be less than or equal to {limit}"


def number_too_low(limit: int) -> str:
    return f"Number must be greater than or equal to {limit}"


def unknown_option(value: Any) -> str:
    return f"'{value}' is not one of the options of this question"


def _options(n: int) -> str:
    return f"{n} option" if n == 1 else f"{n} options"


def choice_limits(question: dict[str, Any]) -> tuple[int | None, int | None]:
    """(min, max) of a multi-choice question's choice limit; (None, None) without one."""
    if not question.get("withChoiceLimit"):
        return None, None
    limits = question.get("choiceLimits") or {}

    def bound(name: str) -> int | None:
        inner = limits.get(name)
        value = inner.get("value") if isinstance(inner, dict) else None
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    return bound("min"), bound("max")


def choice_limit_message(question: dict[str, Any], selected: int) -> str | None:
    """The spec's choice-limit wording when `selected` is outside the limit, else None."""
    low, high = choice_limits(question)
    if low is not None and high is not None:
        if low <= selected <= high:
            return None
        if low == high:
            return f"You must select {_options(low)}"
        return f"You can select between {low} and {high} options"
    if low is not None and selected < low:
        return f"You must select at least {_options(low)}"
    if high is not None and selected > high:
        return f"You can select up to {_options(high)}"
    return None


def is_limited(question: dict[str, Any]) -> bool:
    """Long text and open-ended answers need 15 words unless isLimited is false."""
    return question.get("type") in LIMITABLE_TEXT and question.get("isLimited", True) is not False


def limited_hint(question: dict[str, Any]) -> str | None:
    return LIMITED_HINT if is_limited(question) else None


def word_count(text: Any) -> int:
    return len(text.split()) if isinstance(text, str) else 0


def default_value(question: dict[str, Any]) -> Any:
    qtype = question.get("type")
    if qtype in MULTI_CHOICE or qtype == "rank":
        return []
    if qtype in SINGLE_CHOICE or qtype in TEXT:
        return ""
    if qtype == "matrix":
        return {}
    return None  # rating, number, description


def default_answer(question: dict[str, Any]) -> dict[str, Any]:
    """The empty answer object of a question (what a reset answer becomes)."""
    answer: dict[str, Any] = {"type": question.get("type"), "value": default_value(question), "isOther": False}
    if question.get("type") in LIMITABLE_TEXT:
        answer["isLimited"] = is_limited(question)
    return answer


def _values(question: dict[str, Any], field: str) -> list[Any]:
    items = question.get(field) or []
    return [item.get("value") for item in items if isinstance(item, dict)]


def parse_number(value: Any) -> float | None:
    """A finite number from a number or numeric text; None when it is not one."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return None
    else:
        return None
    return number if math.isfinite(number) else None


def is_empty(question: dict[str, Any], answer: Any) -> bool:
    """No answer given (the default, blank text, an empty list)."""
    if not isinstance(answer, dict):
        return answer is None
    if answer.get("isOther"):
        return False  # 'other' chosen: its text is checked by the type's rule
    value = answer.get("value")
    if value is None:
        return True
    if isinstance(value, str):
        return not value.strip()
    if isinstance(value, (list, dict)):
        return not value
    return False


def validate_answer(question: dict[str, Any], answer: Any) -> str | None:
    """The spec's message for an answer, or None when it is acceptable.

    An empty answer is refused only when the question is required; an answer that is
    given must follow every rule of its type (known options, limits, lengths)."""
    qtype = question.get("type")
    if qtype == "description":
        return None
    if answer is not None and not isinstance(answer, dict):
        return INVALID_VALUE
    if isinstance(answer, dict) and answer.get("type") not in (None, qtype):
        return WRONG_TYPE
    if is_empty(question, answer):
        return REQUIRED if question.get("isRequired") else None
    assert isinstance(answer, dict)
    value = answer.get("value")
    if qtype in SINGLE_CHOICE:
        return _single(question, answer, value)
    if qtype in MULTI_CHOICE:
        return _multi(question, answer, value)
    if qtype in TEXT:
        return _text(question, value)
    if qtype == "number":
        return _number(question, value)
    if qtype == "rank":
        return _rank(question, value)
    if qtype == "rating":
        number = parse_number(value)
        return None if number is not None and number in _values(question, "scales") else RATING_NOT_ON_SCALE
    if qtype == "matrix":
        return _matrix(question, value)
    return INVALID_VALUE


def _other_text(text: Any) -> str | None:
    if not isinstance(text, str):
        return INVALID_VALUE
    if len(text.strip()) < MIN_OTHER_LENGTH:
        return OTHER_TOO_SHORT
    if len(text) > MAX_OTHER_LENGTH:
        return OTHER_TOO_LONG
    return None


def _single(question: dict[str, Any], answer: dict[str, Any], value: Any) -> str | None:
    if answer.get("isOther"):
        if not question.get("withOtherOption"):
            return unknown_option("other")
        return _other_text(value)
    if not isinstance(value, str):
        return INVALID_VALUE
    return None if value in _values(question, "options") else unknown_option(value)


def _multi(question: dict[str, Any], answer: dict[str, Any], value: Any) -> str | None:
    value = [] if value is None else value
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return INVALID_VALUE
    known = _values(question, "options")
    for item in value:
        if item not in known:
            return unknown_option(item)
    if len(set(value)) != len(value):
        return INVALID_VALUE
    selected = len(value)
    if answer.get("isOther"):
        if not question.get("withOtherOption"):
            return unknown_option("other")
        text = answer.get("otherText")
        if not isinstance(text, str) or not text.strip():
            return REQUIRED
        if len(text) > MAX_OTHER_LENGTH:
            return OTHER_TOO_LONG
        selected += 1
    return choice_limit_message(question, selected)


def _text(question: dict[str, Any], value: Any) -> str | None:
    if not isinstance(value, str):
        return INVALID_VALUE
    if len(value) > MAX_TEXT_LENGTH:
        return TEXT_TOO_LONG
    if is_limited(question) and word_count(value) < MIN_WORDS:
        return TOO_SHORT
    return None


def number_limits(question: dict[str, Any]) -> tuple[int, int]:
    if question.get("numberType") == "percentage":
        return PERCENT_MIN, PERCENT_MAX
    return NUMBER_MIN, NUMBER_MAX


def _number(question: dict[str, Any], value: Any) -> str | None:
    number = parse_number(value)
    if number is None:
        return INVALID_NUMBER
    low, high = number_limits(question)
    if number > high:
        return number_too_high(high)
    if number < low:
        return number_too_low(low)
    return None


def _rank(question: dict[str, Any], value: Any) -> str | None:
    if not isinstance(value, list):
        return INVALID_VALUE
    known = _values(question, "options")
    for item in value:
        if item not in known:
            return unknown_option(item)
    return DUPLICATE_RANK if len(set(value)) != len(value) else None


def _matrix(question: dict[str, Any], value: Any) -> str | None:
    if not isinstance(value, dict):
        return INVALID_VALUE
    statements = _values(question, "statements")
    answers = _values(question, "answers")
    for statement, chosen in value.items():
        if statement not in statements:
            return unknown_option(statement)
        if not isinstance(chosen, list):
            return INVALID_VALUE
        for item in chosen:
            if item not in answers:
                return unknown_option(item)
        if len(set(chosen)) != len(chosen):
            return INVALID_VALUE
        if not question.get("allowMultipleAnswers") and len(chosen) > 1:
            return ONE_PER_STATEMENT
    if any(not value.get(statement) for statement in statements):
        return MATRIX_ROWS
    return None


# The fields of an answer object as the survey page builds it (anything else is dropped).
ANSWER_FIELDS = frozenset({"type", "value", "isOther", "otherText", "isLimited", "pasteMetadata"})


def paste_metadata_ok(value: Any) -> bool:
    """pasteMetadata as the page records it: {wasPasted: true, pasteTimestamp: text, pastedLength: count}."""
    return (
        isinstance(value, dict)
        and set(value) == {"wasPasted", "pasteTimestamp", "pastedLength"}
        and value["wasPasted"] is True
        and isinstance(value["pasteTimestamp"], str)
        and len(value["pasteTimestamp"]) <= 40
        and isinstance(value["pastedLength"], int)
        and not isinstance(value["pastedLength"], bool)
        and 0 < value["pastedLength"] <= MAX_TEXT_LENGTH
    )


def clean_answer(answer: dict[str, Any]) -> dict[str, Any]:
    """An answer object with only the fields the page sends (pasteMetadata only in its own shape)."""
    kept = {k: v for k, v in answer.items() if k in ANSWER_FIELDS}
    if "pasteMetadata" in kept and not paste_metadata_ok(kept["pasteMetadata"]):
        kept.pop("pasteMetadata")
    return kept


def field_errors(errors: dict[str, str]) -> dict[str, str]:
    """Question key -> message as the service's field paths ('answers.<questionKey>')."""
    return {f"answers.{key}": message for key, message in errors.items()}


def validation_status(errors: dict[str, str]) -> str:
    """'invalid' when any error is set, else 'valid' (the survey state's status)."""
    return "invalid" if errors else "valid"
