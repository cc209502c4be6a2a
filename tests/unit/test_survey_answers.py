"""Survey answer rules (spec section 5): defaults, every type's rule and message, with bad inputs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from portal.domain.taking.survey_answers import (
    LIMITED_HINT,
    SUMMARY,
    choice_limit_message,
    default_answer,
    field_errors,
    limited_hint,
    validate_answer,
    validation_status,
    word_count,
)

ROOT = Path(__file__).resolve().parents[2]
QUESTIONS = {
    q["key"]: q for q in json.loads((ROOT / "portal/data/demo_tests/01-survey.json").read_text())["survey"]["questions"]
}

REQUIRED = "Answer is required"
TOO_SHORT = "Your answer is too short, please make it at least 15 words."
WORDS_15 = " ".join(f"word{i}" for i in range(15))
WORDS_14 = " ".join(f"word{i}" for i in range(14))


def q(key: str, **changes: Any) -> dict[str, Any]:
    return {**QUESTIONS[key], **changes}


def a(qtype: str, value: Any, **extra: Any) -> dict[str, Any]:
    return {"type": qtype, "value": value, **extra}


def multi(min_: int | None, max_: int | None, **changes: Any) -> dict[str, Any]:
    limits = {}
    if min_ is not None:
        limits["min"] = {"value": min_}
    if max_ is not None:
        limits["max"] = {"value": max_}
    return q("tools-used", choiceLimits=limits, **changes)


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("tools-used", []),
        ("must-haves", []),
        ("priorities", []),
        ("involvement", ""),
        ("discovery-channel", ""),
        ("job-title", ""),
        ("last-purchase", ""),
        ("pitch-feedback", ""),
        ("satisfaction", None),
        ("annual-budget", None),
        ("budget-share", None),
        ("statements", {}),
    ],
)
def test_default_answers(key: str, value: Any) -> None:
    answer = default_answer(QUESTIONS[key])
    assert answer["value"] == value
    assert answer["type"] == QUESTIONS[key]["type"]
    assert answer["isOther"] is False


def test_default_answers_record_whether_the_text_is_limited() -> None:
    assert default_answer(QUESTIONS["last-purchase"])["isLimited"] is True
    assert default_answer(QUESTIONS["pitch-feedback"])["isLimited"] is False


@pytest.mark.parametrize("key", [k for k, v in QUESTIONS.items() if v.get("isRequired")])
def test_every_required_question_refuses_its_default_answer(key: str) -> None:
    assert validate_answer(QUESTIONS[key], default_answer(QUESTIONS[key])) == REQUIRED
    assert validate_answer(QUESTIONS[key], None) == REQUIRED


@pytest.mark.parametrize("key", [k for k, v in QUESTIONS.items() if not v.get("isRequired")])
def test_optional_questions_accept_no_answer(key: str) -> None:
    assert validate_answer(QUESTIONS[key], default_answer(QUESTIONS[key])) is None
    assert validate_answer(QUESTIONS[key], None) is None


SINGLE = [
    ("involvement", a("single-choice", "decider"), None),
    ("involvement", a("single-choice", "   "), REQUIRED),
    ("involvement", a("single-choice", "ceo"), "'ceo' is not one of the options of this question"),
    ("involvement", a("single-choice", 3), "Invalid answer"),
    ("involvement", a("single-choice", "I pay", isOther=True), "'other' is not one of the options of this question"),
    ("discovery-channel", a("editable-single-choice", "peers"), None),
    ("discovery-channel", a("editable-single-choice", "Linkedin", isOther=True), None),
    ("discovery-channel", a("editable-single-choice", "ab", isOther=True), None),
    ("discovery-channel", a("editable-single-choice", "a", isOther=True), "Please enter at least 2 characters"),
    ("discovery-channel", a("editable-single-choice", " a ", isOther=True), "Please enter at least 2 characters"),
    ("discovery-channel", a("editable-single-choice", "", isOther=True), "Please enter at least 2 characters"),
    ("discovery-channel", a("editable-single-choice", None, isOther=True), "Invalid answer"),
    ("discovery-channel", a("editable-single-choice", "x" * 100, isOther=True), None),
    (
        "discovery-channel",
        a("editable-single-choice", "x" * 101, isOther=True),
        "The 'Other' answer can be at most 100 characters",
    ),
    ("discovery-channel", a("single-choice", "peers"), "This answer does not match the question"),
    ("discovery-channel", "peers", "Invalid answer"),
]


@pytest.mark.parametrize(("key", "answer", "message"), SINGLE)
def test_single_choice(key: str, answer: Any, message: str | None) -> None:
    assert validate_answer(QUESTIONS[key], answer) == message


MULTI = [
    (["spreadsheets"], {}, None),
    (["spreadsheets", "bi-suite", "web-analytics"], {}, None),
    (["spreadsheets", "bi-suite", "web-analytics", "product-analytics"], {}, "You can select between 1 and 3 options"),
    (
        ["spreadsheets", "bi-suite", "web-analytics"],
        {"isOther": True, "otherText": "Looker"},
        "You can select between 1 and 3 options",
    ),
    ([], {"isOther": True, "otherText": "Looker"}, None),
    (["spreadsheets"], {"isOther": True, "otherText": "  "}, REQUIRED),
    ([], {"isOther": True, "otherText": ""}, REQUIRED),
    ([], {"isOther": True}, REQUIRED),
    (["spreadsheets"], {"isOther": True, "otherText": "x" * 101}, "The 'Other' answer can be at most 100 characters"),
    (["excel"], {}, "'excel' is not one of the options of this question"),
    (["spreadsheets", "spreadsheets"], {}, "Invalid answer"),
    ("spreadsheets", {}, "Invalid answer"),
]


@pytest.mark.parametrize(("value", "extra", "message"), MULTI)
def test_multi_choice(value: Any, extra: dict[str, Any], message: str | None) -> None:
    assert validate_answer(QUESTIONS["tools-used"], a("multi-choice", value, **extra)) == message


def test_multi_choice_other_refused_without_the_other_option() -> None:
    answer = a("editable-multi-choice", ["sso"], isOther=True, otherText="Audit log")
    assert validate_answer(QUESTIONS["must-haves"], answer) == "'other' is not one of the options of this question"


LIMITS = [
    # (min, max, selected, message)
    (2, None, 1, "You must select at least 2 options"),
    (1, None, 0, "You must select at least 1 option"),
    (2, None, 2, None),
    (None, 1, 2, "You can select up to 1 option"),
    (None, 2, 3, "You can select up to 2 options"),
    (None, 2, 2, None),
    (2, 2, 1, "You must select 2 options"),
    (2, 2, 3, "You must select 2 options"),
    (1, 1, 2, "You must select 1 option"),
    (2, 2, 2, None),
    (1, 3, 4, "You can select between 1 and 3 options"),
    (2, 3, 1, "You can select between 2 and 3 options"),
    (None, None, 9, None),
]


@pytest.mark.parametrize(("low", "high", "selected", "message"), LIMITS)
def test_choice_limit_wording(low: int | None, high: int | None, selected: int, message: str | None) -> None:
    assert choice_limit_message(multi(low, high), selected) == message


def test_choice_limit_applies_only_when_enabled() -> None:
    question = multi(1, 1, withChoiceLimit=False)
    assert validate_answer(question, a("multi-choice", ["spreadsheets", "bi-suite"])) is None
    assert validate_answer(multi(1, 1), a("multi-choice", ["spreadsheets", "bi-suite"])) == "You must select 1 option"


TEXTS = [
    ("job-title", "Head of data", None),
    ("job-title", " \n\t ", REQUIRED),
    ("job-title", "x" * 10000, None),
    ("job-title", "x" * 10001, "Your answer can be at most 10000 characters"),
    ("job-title", 42, "Invalid answer"),
    ("last-purchase", WORDS_15, None),
    ("last-purchase", WORDS_14, TOO_SHORT),
    ("last-purchase", "too short to count", TOO_SHORT),
    ("last-purchase", "   ", REQUIRED),
    ("last-purchase", WORDS_15 + " " + "x" * 10000, "Your answer can be at most 10000 characters"),
    ("pitch-feedback", "Price", None),
    ("pitch-feedback", "x" * 10001, "Your answer can be at most 10000 characters"),
]


@pytest.mark.parametrize(("key", "value", "message"), TEXTS)
def test_text_answers(key: str, value: Any, message: str | None) -> None:
    assert validate_answer(QUESTIONS[key], a(QUESTIONS[key]["type"], value)) == message


def test_open_ended_is_limited_unless_is_limited_is_false() -> None:
    limited = q("pitch-feedback", isRequired=True)
    del limited["isLimited"]
    assert validate_answer(limited, a("editable-open-ended", "three short words")) == TOO_SHORT
    assert validate_answer(q("pitch-feedback", isRequired=True), a("editable-open-ended", "three short words")) is None
    assert validate_answer(q("pitch-feedback", isLimited=True), a("editable-open-ended", WORDS_14)) == TOO_SHORT


@pytest.mark.parametrize(
    ("question", "hint"),
    [(QUESTIONS["last-purchase"], LIMITED_HINT), (QUESTIONS["pitch-feedback"], None), (QUESTIONS["job-title"], None)],
)
def test_limited_hint(question: dict[str, Any], hint: str | None) -> None:
    assert limited_hint(question) == hint
    assert LIMITED_HINT == "Your answer should be at least 15 words long"


@pytest.mark.parametrize(
    ("text", "count"),
    [("", 0), ("   ", 0), ("one", 1), ("two  words", 2), ("a\nb\tc d", 4), (None, 0)],
)
def test_word_count(text: Any, count: int) -> None:
    assert word_count(text) == count


NUMBERS = [
    ("annual-budget", 0, None),
    ("annual-budget", 999999, None),
    ("annual-budget", "12500", None),
    ("annual-budget", 1000000, "Number must be less than or equal to 999999"),
    ("annual-budget", 999999.5, "Number must be less than or equal to 999999"),
    ("annual-budget", -(2**53 - 1), None),
    ("annual-budget", -(2**53), "Number must be greater than or equal to -9007199254740991"),
    ("annual-budget", "abc", "Invalid number"),
    ("annual-budget", float("inf"), "Invalid number"),
    ("annual-budget", float("nan"), "Invalid number"),
    ("annual-budget", "Infinity", "Invalid number"),
    ("annual-budget", True, "Invalid number"),
    ("annual-budget", "", REQUIRED),
    ("budget-share", 0, None),
    ("budget-share", 100, None),
    ("budget-share", 55.5, None),
    ("budget-share", 101, "Number must be less than or equal to 100"),
    ("budget-share", -1, "Number must be greater than or equal to 0"),
    ("budget-share", "", None),
    ("budget-share", "1e2", None),
    ("budget-share", [5], "Invalid number"),
]


@pytest.mark.parametrize(("key", "value", "message"), NUMBERS)
def test_numbers(key: str, value: Any, message: str | None) -> None:
    assert validate_answer(QUESTIONS[key], a("number", value)) == message


RANKS = [
    (["price", "ease", "integrations", "support"], None),
    (["support"], None),
    ([], REQUIRED),
    (["price", "price"], "Each option can be ranked only once"),
    (["price", "cost"], "'cost' is not one of the options of this question"),
    ("price", "Invalid answer"),
]


@pytest.mark.parametrize(("value", "message"), RANKS)
def test_rank(value: Any, message: str | None) -> None:
    assert validate_answer(QUESTIONS["priorities"], a("rank", value)) == message


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (1, None),
        (5, None),
        (3.0, None),
        (0, "Please choose one of the values on the scale"),
        (6, "Please choose one of the values on the scale"),
        (2.5, "Please choose one of the values on the scale"),
        (float("nan"), "Please choose one of the values on the scale"),
        ("five", "Please choose one of the values on the scale"),
        (True, "Please choose one of the values on the scale"),
        (None, REQUIRED),
    ],
)
def test_rating(value: Any, message: str | None) -> None:
    assert validate_answer(QUESTIONS["satisfaction"], a("rating", value)) == message


MATRIX_ROWS = "Answer is required for all statements in the row"
MATRICES = [
    ({"trust": ["agree"], "speed": ["neutral"]}, False, None),
    ({"trust": ["agree"]}, False, MATRIX_ROWS),
    ({"trust": ["agree"], "speed": []}, False, MATRIX_ROWS),
    ({}, False, REQUIRED),
    ({"trust": ["agree", "neutral"], "speed": ["neutral"]}, False, "Please choose one answer per statement"),
    ({"trust": ["agree", "neutral"], "speed": ["neutral"]}, True, None),
    ({"trust": ["agree", "agree"], "speed": ["neutral"]}, True, "Invalid answer"),
    (
        {"trust": ["agree"], "speed": ["neutral"], "price": ["agree"]},
        False,
        "'price' is not one of the options of this question",
    ),
    ({"trust": ["love"], "speed": ["neutral"]}, False, "'love' is not one of the options of this question"),
    ({"trust": "agree", "speed": ["neutral"]}, False, "Invalid answer"),
    (["agree"], False, "Invalid answer"),
]


@pytest.mark.parametrize(("value", "multiple", "message"), MATRICES)
def test_matrix(value: Any, multiple: bool, message: str | None) -> None:
    question = q("statements", allowMultipleAnswers=multiple)
    assert validate_answer(question, a("matrix", value)) == message


def test_optional_questions_still_check_a_given_answer() -> None:
    optional = q("statements", isRequired=False)
    assert validate_answer(optional, a("matrix", {"trust": ["agree"]})) == MATRIX_ROWS
    assert validate_answer(q("last-purchase", isRequired=False), a("long-text", WORDS_14)) == TOO_SHORT
    assert validate_answer(QUESTIONS["must-haves"], a("editable-multi-choice", ["sso", "vpn"])) == (
        "'vpn' is not one of the options of this question"
    )


def test_a_description_takes_no_answer() -> None:
    assert validate_answer(QUESTIONS["concept-intro"], None) is None
    assert default_answer(QUESTIONS["concept-intro"])["value"] is None


def test_choosing_other_on_an_optional_question_needs_its_text() -> None:
    optional = q("discovery-channel", isRequired=False)
    assert (
        validate_answer(optional, a("editable-single-choice", "", isOther=True)) == "Please enter at least 2 characters"
    )
    assert validate_answer(optional, a("editable-single-choice", "")) is None


def test_field_errors_use_the_service_paths() -> None:
    assert field_errors({"job-title": REQUIRED}) == {"answers.job-title": REQUIRED}


def test_validation_status_and_summary() -> None:
    assert validation_status({}) == "valid"
    assert validation_status({"job-title": REQUIRED}) == "invalid"
    assert SUMMARY == "Please check your answers. Some fields contain invalid values."


def test_clean_answer_keeps_only_the_page_fields_and_well_formed_paste_metadata():
    from portal.domain.taking.survey_answers import clean_answer

    paste = {"wasPasted": True, "pasteTimestamp": "2026-11-21T10:00:00Z", "pastedLength": 42}
    assert clean_answer({"type": "long-text", "value": "x", "reviewId": 7, "pasteMetadata": paste}) == {
        "type": "long-text",
        "value": "x",
        "pasteMetadata": paste,
    }
    for bad in (
        {**paste, "pastedLength": 0},
        {**paste, "wasPasted": "yes"},
        {**paste, "extra": 1},
        {**paste, "pasteTimestamp": "x" * 41},
        {**paste, "pastedLength": True},
        "pasted",
    ):
        assert "pasteMetadata" not in clean_answer({"type": "long-text", "value": "x", "pasteMetadata": bad})
