"""Screener rules (portal/domain/taking/screener.py): the public view, untrusted input, judging, Confirm."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from portal.domain.taking import screener as rules

ROOT = Path(__file__).resolve().parents[2]
DEMO = json.loads((ROOT / "portal/data/demo_tests/07-screener.json").read_text())["screenerQuestion"]

SINGLE = DEMO  # answer 0 is the only correct one
MULTIPLE = {
    "type": "multiple",
    "question": "Which tools do you use?",
    "answers": [
        {"text": "ERP", "isCorrect": True},
        {"text": "CRM", "isCorrect": True},
        {"text": "None of these", "isCorrect": False},
    ],
}
MATRIX = {
    "type": "matrix",
    "question": "How often do you use these?",
    "rows": ["ERP", "CRM"],
    "columns": ["Never", "Monthly", "Daily"],
    "correctMatrix": [[1, 2], [2]],
    "answers": [{"text": "x", "isCorrect": True, "_matrixData": {"secret": 1}}],
}
MATRIX_MULTI = {**MATRIX, "allowMultiple": True}


def test_public_view_of_a_choice_screener_hides_the_correct_answers() -> None:
    public = rules.public_screener(SINGLE)
    assert public == {
        "type": "single",
        "question": "Which best describes your role in your company's finance tooling?",
        "answers": [
            {"index": 0, "text": "I choose or approve finance software"},
            {"index": 1, "text": "I use finance software but do not choose it"},
            {"index": 2, "text": "I do not work with finance software"},
        ],
        "rows": [],
        "columns": [],
        "allowMultiple": False,
    }
    assert "isCorrect" not in json.dumps(public)
    assert rules.public_screener(MULTIPLE)["allowMultiple"] is True


def test_public_view_of_a_matrix_hides_correct_matrix_and_matrix_data() -> None:
    public = rules.public_screener(MATRIX_MULTI)
    assert public == {
        "type": "matrix",
        "question": "How often do you use these?",
        "answers": [],
        "rows": ["ERP", "CRM"],
        "columns": ["Never", "Monthly", "Daily"],
        "allowMultiple": True,
    }
    text = json.dumps(public)
    assert "correctMatrix" not in text and "_matrixData" not in text and "isCorrect" not in text
    assert rules.public_screener(MATRIX)["allowMultiple"] is False


@pytest.mark.parametrize(
    "bad",
    [
        None,
        [],
        {"type": "quiz", "question": "Q"},
        {**MULTIPLE, "question": ""},
        {**MULTIPLE, "answers": [{"text": "only one", "isCorrect": True}]},
        {**MULTIPLE, "answers": [{"text": "a"}, {"isCorrect": True}]},
        {**MATRIX, "correctMatrix": [[1]]},
        {**MATRIX, "correctMatrix": [[1], [3]]},
        {**MATRIX, "rows": []},
    ],
)
def test_a_malformed_stored_screener_is_refused(bad: Any) -> None:
    with pytest.raises(ValueError):
        rules.public_screener(bad)


def test_the_spec_texts() -> None:
    assert rules.HEADING == "Screening question"
    assert rules.INTRO == (
        "Before starting taking the test, we need you to answer some questions so we can know "
        "you are the right fit for the test."
    )
    assert rules.FAILED.startswith(
        "Thank you for taking the time to complete the questionnaire. At this time, we "
        "have found that your response does not match the requirements for this test"
    )
    assert "..." not in rules.FAILED and rules.FAILED.endswith(".")
    assert rules.SCROLL_HINT == "Scroll horizontally to see all options"
    assert rules.verification_error("boom") == "Error in screener verification: boom"


# --- parse_selection: untrusted input ----------------------------------------------------------


def test_parse_reads_each_kind_into_a_dense_selection() -> None:
    assert rules.parse_selection(SINGLE, 2) == {"0": [2]}
    assert rules.parse_selection(SINGLE, "1") == {"0": [1]}
    assert rules.parse_selection(SINGLE, None) == {"0": []}
    assert rules.parse_selection(MULTIPLE, [2, 0]) == {"0": [0, 2]}
    assert rules.parse_selection(MULTIPLE, []) == {"0": []}
    assert rules.parse_selection(MATRIX, {"1": [2], 0: [0]}) == {"0": [0], "1": [2]}
    assert rules.parse_selection(MATRIX, {"0": [1]}) == {"0": [1], "1": []}
    assert rules.parse_selection(MATRIX_MULTI, {"0": [2, 1], "1": ["2"]}) == {"0": [1, 2], "1": [2]}


@pytest.mark.parametrize(
    ("screener", "raw"),
    [
        (SINGLE, 3),
        (SINGLE, -1),
        (SINGLE, "²"),
        (SINGLE, "1.0"),
        (SINGLE, 1.0),
        (SINGLE, True),
        (SINGLE, [0]),
        (SINGLE, {"0": [0]}),
        (SINGLE, ""),
        (SINGLE, "0" * 40),
        (MULTIPLE, 0),
        (MULTIPLE, "0,1"),
        (MULTIPLE, [0, 0]),
        (MULTIPLE, [0, "0"]),
        (MULTIPLE, [3]),
        (MULTIPLE, [False]),
        (MULTIPLE, [0, 1, 2, 0]),
        (MULTIPLE, {"0": [0]}),
        (MULTIPLE, ["²"]),
        (MATRIX, [[0], [1]]),
        (MATRIX, {"2": [0]}),
        (MATRIX, {"0": [3]}),
        (MATRIX, {"0": 1}),
        (MATRIX, {"0": [0, 1]}),
        (MATRIX, {"0": [1], 0: [2]}),
        (MATRIX, {"x": [0]}),
        (MATRIX, {"²": [0]}),
        (MATRIX, {"0": [1, 1]}),
        (MATRIX, {"-1": [0]}),
        (MATRIX, None),
        (MATRIX_MULTI, {"0": [1, 1]}),
        (MATRIX_MULTI, {"0": [0, 1, 2, 0]}),
    ],
)
def test_parse_refuses_bad_input(screener: dict[str, Any], raw: Any) -> None:
    with pytest.raises(ValueError):
        rules.parse_selection(screener, raw)


# --- judge --------------------------------------------------------------------------------------


def test_single_passes_only_with_a_correct_answer() -> None:
    assert rules.judge(SINGLE, {"0": [0]}) is True
    assert rules.judge(SINGLE, {"0": [1]}) is False
    assert rules.judge(SINGLE, {"0": []}) is False
    assert rules.judge(SINGLE, {"0": [0, 1]}) is False


def test_multiple_passes_with_any_non_empty_subset_of_the_correct_answers() -> None:
    assert rules.judge(MULTIPLE, {"0": [0]}) is True
    assert rules.judge(MULTIPLE, {"0": [1]}) is True
    assert rules.judge(MULTIPLE, {"0": [0, 1]}) is True
    assert rules.judge(MULTIPLE, {"0": [0, 2]}) is False
    assert rules.judge(MULTIPLE, {"0": [2]}) is False
    assert rules.judge(MULTIPLE, {"0": []}) is False


def test_matrix_passes_when_every_row_is_answered_from_its_correct_columns() -> None:
    assert rules.judge(MATRIX, {"0": [1], "1": [2]}) is True
    assert rules.judge(MATRIX, {"0": [2], "1": [2]}) is True
    assert rules.judge(MATRIX, {"0": [0], "1": [2]}) is False
    assert rules.judge(MATRIX, {"0": [1], "1": [1]}) is False
    assert rules.judge(MATRIX, {"0": [1], "1": []}) is False
    assert rules.judge(MATRIX, {"0": [1, 2], "1": [2]}) is False  # one answer per row without allowMultiple
    assert rules.judge(MATRIX_MULTI, {"0": [1, 2], "1": [2]}) is True
    assert rules.judge(MATRIX_MULTI, {"0": [0, 1], "1": [2]}) is False


# --- choosing and Confirm -----------------------------------------------------------------------


def test_confirm_needs_an_answer_and_every_statement_of_a_matrix() -> None:
    single, matrix = rules.public_screener(SINGLE), rules.public_screener(MATRIX)
    assert rules.empty_selection(single) == {"0": []}
    assert rules.empty_selection(matrix) == {"0": [], "1": []}
    assert not rules.can_confirm(single, {"0": []})
    assert rules.can_confirm(single, {"0": [2]})
    assert not rules.can_confirm(matrix, {"0": [1], "1": []})
    assert not rules.can_confirm(matrix, {"0": [1]})
    assert rules.can_confirm(matrix, {"0": [1], "1": [0]})
    assert not rules.can_confirm(matrix, "0")
    assert not rules.can_confirm({"type": "quiz"}, {"0": [1]})


def test_radio_kinds_replace_and_checkbox_kinds_toggle() -> None:
    single, multiple = rules.public_screener(SINGLE), rules.public_screener(MULTIPLE)
    matrix, matrix_multi = rules.public_screener(MATRIX), rules.public_screener(MATRIX_MULTI)
    picked = rules.choose(single, {"0": [1]}, 0, "2")
    assert picked == {"0": [2]}
    assert rules.choose(single, picked, 0, 2, False) == {"0": [2]}  # a radio cannot be unticked
    ticked = rules.choose(multiple, rules.choose(multiple, {"0": []}, 0, 2, True), 0, 0, True)
    assert ticked == {"0": [0, 2]}
    assert rules.choose(multiple, ticked, 0, 2, False) == {"0": [0]}
    assert rules.choose(matrix, {"0": [0], "1": []}, "1", 1) == {"0": [0], "1": [1]}
    assert rules.choose(matrix, {"0": [0], "1": [1]}, 1, 2) == {"0": [0], "1": [2]}
    assert rules.choose(matrix_multi, {"0": [0], "1": []}, 0, 2, True) == {"0": [0, 2], "1": []}


@pytest.mark.parametrize(
    ("row", "index", "checked"),
    [
        (1, 0, True),
        (0, 3, True),
        ("²", 0, True),
        (0, "x", True),
        (0, -1, True),
        (0, 0, "true"),
        (True, 0, True),
    ],
)
def test_choose_refuses_what_is_not_an_answer(row: Any, index: Any, checked: Any) -> None:
    with pytest.raises(ValueError):
        rules.choose(rules.public_screener(MULTIPLE), {"0": []}, row, index, checked)


def test_submission_and_stored_forms_round_trip() -> None:
    assert rules.as_submission(SINGLE, {"0": [1]}) == 1
    assert rules.as_submission(SINGLE, {"0": []}) is None
    assert rules.as_submission(MULTIPLE, {"0": [0, 1]}) == [0, 1]
    assert rules.as_submission(MATRIX, {"0": [1], "1": [2]}) == {"0": [1], "1": [2]}
    for screener, selection in ((SINGLE, {"0": [1]}), (MULTIPLE, {"0": [0, 1]}), (MATRIX, {"0": [1], "1": [2]})):
        assert rules.parse_selection(screener, rules.as_submission(screener, selection)) == selection
    assert rules.stored_answers(MULTIPLE, {"0": [0, 1]}) == {"type": "multiple", "answers": [0, 1]}
    assert rules.stored_answers(MATRIX, {"0": [1], "1": [2]}) == {"type": "matrix", "selections": {"0": [1], "1": [2]}}


def test_only_signed_in_participants_are_screened() -> None:
    assert rules.applies(has_screener=True, signed_in=True)
    assert not rules.applies(has_screener=True, signed_in=False)
    assert not rules.applies(has_screener=False, signed_in=True)
