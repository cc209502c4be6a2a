"""Survey branching (spec section 4) through the demo survey, and the submission check (section 5)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from portal.domain.taking.survey_answers import default_answer
from portal.domain.taking.survey_branching import (
    END,
    NO_ROUTE,
    UNKNOWN_QUESTION,
    after_branch_change,
    answers_for_submission,
    branch_target,
    go_back,
    go_forward,
    history_add,
    history_truncate,
    next_index,
    pages,
    route,
    validate_submission,
)

ROOT = Path(__file__).resolve().parents[2]
SURVEY = json.loads((ROOT / "portal/data/demo_tests/01-survey.json").read_text())["survey"]["questions"]
INDEX = {q["key"]: i for i, q in enumerate(SURVEY)}
WORDS_15 = " ".join(f"word{i}" for i in range(15))


def questions() -> list[dict[str, Any]]:
    return copy.deepcopy(SURVEY)


def involvement(value: str) -> dict[str, Any]:
    return {"type": "single-choice", "value": value}


# Good answers for every question after the first.
GOOD = {
    "tools-used": {"type": "multi-choice", "value": ["spreadsheets"]},
    "annual-budget": {"type": "number", "value": 12000},
    "budget-share": {"type": "number", "value": 10},
    "priorities": {"type": "rank", "value": ["price", "ease", "integrations", "support"]},
    "satisfaction": {"type": "rating", "value": 4},
    "statements": {"type": "matrix", "value": {"trust": ["agree"], "speed": ["neutral"]}},
    "discovery-channel": {"type": "editable-single-choice", "value": "peers"},
    "must-haves": {"type": "editable-multi-choice", "value": ["sso"]},
    "job-title": {"type": "short-text", "value": "Head of data"},
    "last-purchase": {"type": "long-text", "value": WORDS_15, "isLimited": True},
    "pitch-feedback": {"type": "editable-open-ended", "value": "", "isLimited": False},
}


def answers_for(choice: str, **overrides: Any) -> dict[str, Any]:
    return {"involvement": involvement(choice), **GOOD, **overrides}


def test_pages_default_to_the_previous_question_page() -> None:
    assert pages(SURVEY) == [1, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3]
    assert pages([{"key": "a"}, {"key": "b", "page": 2}, {"key": "c"}]) == [1, 2, 2]


@pytest.mark.parametrize(
    ("choice", "target"),
    [("decider", INDEX["tools-used"]), ("influencer", INDEX["priorities"]), ("none", END)],
)
def test_branch_goes_to_the_first_question_of_the_target_page_or_the_end(choice: str, target: Any) -> None:
    assert next_index(SURVEY, 0, {"involvement": involvement(choice)}) == target


@pytest.mark.parametrize(
    "answer",
    [None, involvement(""), involvement("unknown"), {"type": "single-choice", "value": "x", "isOther": True}],
)
def test_no_forward_route_without_a_target(answer: Any) -> None:
    assert next_index(SURVEY, 0, {"involvement": answer} if answer else {}) is None


def test_an_option_without_a_target_gives_no_forward_route() -> None:
    qs = questions()
    del qs[0]["options"][1]["conditional"]
    assert next_index(qs, 0, {"involvement": involvement("influencer")}) is None
    assert next_index(qs, 0, {"involvement": involvement("decider")}) == 1


def test_branch_target_read_from_the_definition_not_the_answer() -> None:
    forged = {"type": "single-choice", "value": "influencer", "conditional": "influencer-999"}
    assert branch_target(SURVEY[0], forged) == 3
    assert branch_target(SURVEY[1], GOOD["tools-used"]) is None


def test_without_the_conditional_feature_the_survey_is_linear() -> None:
    assert next_index(SURVEY, 0, {"involvement": involvement("none")}, conditional_enabled=False) == 1
    assert next_index(SURVEY, 0, {}, conditional_enabled=False) == 1


@pytest.mark.parametrize(("index", "target"), [(1, 2), (3, 4), (7, 8), (11, 12), (12, END)])
def test_other_questions_go_to_the_next_one_and_the_last_to_the_end(index: int, target: Any) -> None:
    assert next_index(SURVEY, index, answers_for("decider")) == target


def test_a_target_page_without_questions_goes_to_the_next_page() -> None:
    qs = questions()
    qs[0]["options"][0]["conditional"] = 5
    assert next_index(qs, 0, {"involvement": involvement("decider")}) == END
    qs[4]["page"] = qs[5]["page"] = 4
    for q in qs[6:]:
        q["page"] = 4
    qs[0]["options"][0]["conditional"] = 3
    assert next_index(qs, 0, {"involvement": involvement("decider")}) == 4


@pytest.mark.parametrize(
    ("history", "index", "expected"),
    [([], 0, [0]), ([0], 0, [0]), ([0, 4], 4, [0, 4]), ([0, 4], 5, [0, 4, 5]), ([0, 4, 5], 0, [0, 4, 5, 0])],
)
def test_history_add_skips_an_entry_equal_to_the_last(history: list[int], index: int, expected: list[int]) -> None:
    assert history_add(history, index) == expected


@pytest.mark.parametrize(
    ("history", "index", "expected"),
    [([0, 4, 5, 6], 4, [0, 4]), ([0, 4, 5], 0, [0]), ([0, 4, 5], 5, [0, 4, 5]), ([0, 4], 9, [0, 4])],
)
def test_history_truncate(history: list[int], index: int, expected: list[int]) -> None:
    assert history_truncate(history, index) == expected


def test_forward_and_back_follow_the_branch() -> None:
    answers = answers_for("influencer")
    target, history = go_forward(SURVEY, [0], 0, answers)
    assert (target, history) == (4, [0, 4])
    target, history = go_forward(SURVEY, history, 4, answers)
    assert (target, history) == (5, [0, 4, 5])
    previous, history = go_back(history)
    assert (previous, history) == (4, [0, 4])
    previous, history = go_back(history)
    assert (previous, history) == (0, [0])
    assert go_back(history) == (None, [0])


def test_forward_after_back_truncates_the_history() -> None:
    target, history = go_forward(SURVEY, [0, 4, 5, 6], 0, answers_for("decider"))
    assert (target, history) == (1, [0, 1])


def test_forward_to_the_end_and_without_route_keeps_the_current_question_last() -> None:
    assert go_forward(SURVEY, [0], 0, {"involvement": involvement("none")}) == (END, [0])
    assert go_forward(SURVEY, [0], 0, {}) == (None, [0])
    assert go_forward(SURVEY, [0, 4, 12], 12, answers_for("influencer")) == (END, [0, 4, 12])


def test_changing_the_branch_answer_resets_later_answers_and_trims_history() -> None:
    old = involvement("decider")
    new = involvement("influencer")
    answers = answers_for("influencer")
    result, history = after_branch_change(SURVEY, 0, old, new, answers, [0, 1, 2, 3, 4])
    assert history == [0]
    assert result["involvement"] == new
    for key in GOOD:
        assert result[key] == default_answer(SURVEY[INDEX[key]])
    assert answers["tools-used"] == GOOD["tools-used"]  # the input is not changed


def test_same_target_keeps_later_answers() -> None:
    qs = questions()
    qs[0]["options"][1]["conditional"] = 2
    answers = answers_for("influencer")
    result, history = after_branch_change(qs, 0, involvement("decider"), involvement("influencer"), answers, [0, 1])
    assert result == answers
    assert history == [0, 1]


def test_a_change_on_a_question_that_does_not_branch_changes_nothing_else() -> None:
    answers = answers_for("decider")
    result, history = after_branch_change(
        SURVEY, 1, GOOD["tools-used"], {"type": "multi-choice", "value": ["bi-suite"]}, answers, [0, 1, 2]
    )
    assert result == answers
    assert history == [0, 1, 2]


def test_answers_after_the_earliest_end_branch_are_dropped() -> None:
    answers = answers_for("none")
    assert answers_for_submission(SURVEY, answers, True) == {"involvement": involvement("none")}
    kept = answers_for_submission(SURVEY, answers, False)
    assert set(kept) == {"involvement", *GOOD}


def test_answers_before_an_end_branch_are_kept() -> None:
    qs = questions()
    qs[8]["withConditional"] = True
    qs[8]["options"][0]["conditional"] = 999
    answers = answers_for("influencer", **{"discovery-channel": {"type": "editable-single-choice", "value": "search"}})
    kept = answers_for_submission(qs, answers, True)
    assert list(kept) == [q["key"] for q in qs[:9] if q["type"] != "description"]


def test_route_through_each_branch() -> None:
    assert route(SURVEY, answers_for("decider"), True) == (list(range(13)), True)
    assert route(SURVEY, answers_for("influencer"), True) == ([0, *range(4, 13)], True)
    assert route(SURVEY, answers_for("none"), True) == ([0], True)
    assert route(SURVEY, {}, True) == ([0], False)


@pytest.mark.parametrize("choice", ["decider", "influencer", "none"])
def test_a_complete_survey_passes_on_every_branch(choice: str) -> None:
    assert validate_submission(SURVEY, answers_for(choice), True) == {}


def test_branched_over_required_questions_are_not_required() -> None:
    answers = answers_for("influencer")
    del answers["tools-used"], answers["annual-budget"]
    assert validate_submission(SURVEY, answers, True) == {}


def test_without_the_conditional_feature_every_required_question_is_required() -> None:
    answers = answers_for("influencer")
    del answers["tools-used"], answers["annual-budget"]
    assert validate_submission(SURVEY, answers, False) == {
        "tools-used": "Answer is required",
        "annual-budget": "Answer is required",
    }


def test_required_questions_on_the_route_are_reported_per_question() -> None:
    answers = {"involvement": involvement("influencer")}
    assert validate_submission(SURVEY, answers, True) == {
        key: "Answer is required"
        for key in ("priorities", "satisfaction", "statements", "discovery-channel", "job-title", "last-purchase")
    }


def test_a_short_long_answer_and_an_unknown_option_are_refused() -> None:
    answers = answers_for(
        "decider",
        **{
            "last-purchase": {"type": "long-text", "value": "too short really"},
            "tools-used": {"type": "multi-choice", "value": ["abacus"]},
        },
    )
    assert validate_submission(SURVEY, answers, True) == {
        "last-purchase": "Your answer is too short, please make it at least 15 words.",
        "tools-used": "'abacus' is not one of the options of this question",
    }


def test_a_bad_answer_on_a_skipped_question_is_still_refused() -> None:
    answers = answers_for("influencer", **{"annual-budget": {"type": "number", "value": 10**7}})
    assert validate_submission(SURVEY, answers, True) == {
        "annual-budget": "Number must be less than or equal to 999999"
    }


def test_unanswered_branch_question_and_unknown_keys() -> None:
    assert validate_submission(SURVEY, {}, True) == {"involvement": "Answer is required"}
    qs = questions()
    qs[0]["isRequired"] = False
    assert validate_submission(qs, {}, True) == {"involvement": NO_ROUTE}
    answers = answers_for("none", bogus={"type": "short-text", "value": "x"})
    assert validate_submission(SURVEY, answers, True) == {"bogus": UNKNOWN_QUESTION}


def test_branch_change_on_a_question_missing_from_history_keeps_only_earlier_entries() -> None:
    _, history = after_branch_change(
        SURVEY, 0, involvement("decider"), involvement("none"), answers_for("none"), [1, 2]
    )
    assert history == []
