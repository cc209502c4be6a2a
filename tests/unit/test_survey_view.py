"""How survey questions are shown (portal/domain/taking/survey_view.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from portal.domain.taking import survey_view as view

ROOT = Path(__file__).resolve().parents[2]
QUESTIONS = json.loads((ROOT / "portal/data/demo_tests/01-survey.json").read_text())["survey"]["questions"]
BY_KEY = {q["key"]: q for q in QUESTIONS}


def test_editable_questions_join_their_text_elements_whether_objects_or_strings():
    assert (
        view.question_text(BY_KEY["discovery-channel"]) == "Where would you first look for a tool like Acme Analytics?"
    )
    assert view.question_text(BY_KEY["must-haves"]) == "Which features would Acme Analytics need to have?"
    assert view.question_text({"text": "Plain?"}) == "Plain?"
    assert view.question_text({"text": None}) == ""


def test_randomized_options_are_shuffled_the_same_way_for_the_same_participant():
    question = BY_KEY["tools-used"]
    first = view.ordered_options(question, "7:1")
    assert first == view.ordered_options(question, "7:1")
    assert sorted(o["value"] for o in first) == sorted(o["value"] for o in question["options"])
    orders = {tuple(o["value"] for o in view.ordered_options(question, f"{n}:1")) for n in range(30)}
    assert len(orders) > 1


def test_options_keep_their_order_without_randomization():
    question = BY_KEY["discovery-channel"]
    assert [o["value"] for o in view.ordered_options(question, "x")] == ["search", "peers", "reviews"]


@pytest.mark.parametrize(
    ("limits", "hint"),
    [
        ({"min": {"value": 1}, "max": {"value": 3}}, "Select between 1 and 3 options."),
        ({"min": {"value": 2}, "max": {"value": 2}}, "Select 2 options."),
        ({"min": {"value": 1}, "max": {"value": 1}}, "Select 1 option."),
        ({"min": {"value": 2}}, "Select at least 2 options."),
        ({"max": {"value": 1}}, "Select up to 1 option."),
    ],
)
def test_choice_limit_hints(limits, hint):
    assert view.choice_limit_hint({"withChoiceLimit": True, "choiceLimits": limits}) == hint


def test_question_view_of_each_kind():
    views = [view.question_view(q, i, "1:1") for i, q in enumerate(QUESTIONS)]
    kinds = {v["key"]: v["kind"] for v in views}
    assert kinds["involvement"] == "single" and kinds["tools-used"] == "multi" and kinds["must-haves"] == "multi"
    assert kinds["job-title"] == "short" and kinds["last-purchase"] == "long" and kinds["pitch-feedback"] == "long"
    assert kinds["statements"] == "matrix" and kinds["concept-intro"] == "description"
    by_key = {v["key"]: v for v in views}
    assert by_key["last-purchase"]["hint"] == "Your answer should be at least 15 words long"
    assert by_key["budget-share"]["percentage"] is True
    assert by_key["concept-intro"]["required"] is False
    assert by_key["concept-intro"]["embed"].startswith("https://")
    assert by_key["satisfaction"]["low"] == "Not at all satisfied"
    assert by_key["tools-used"]["withOther"] is True


def test_only_https_embeds_are_shown():
    assert view.question_view({"type": "description", "embeddedLink": "javascript:alert(1)"}, 0, "s")["embed"] == ""


def test_progress_label_counts_from_one():
    assert view.progress_label(0, 13) == "Question 1/13"
    assert view.progress_label(12, 13) == "Question 13/13"


def test_rank_moves_and_order():
    options = [{"value": v, "label": v} for v in ("a", "b", "c")]
    assert view.rank_move(options, [], "c", -1) == ["a", "c", "b"]
    assert view.rank_move(options, ["a", "c", "b"], "a", -1) == ["a", "c", "b"]  # already first
    assert view.rank_move(options, ["b", "a", "c"], "a", 1) == ["b", "c", "a"]
    assert view.rank_move(options, [], "zzz", 1) == ["a", "b", "c"]  # unknown value: the shown order
    assert [o["value"] for o in view.rank_order(options, ["c"])] == ["c", "a", "b"]


def test_matrix_pick_single_replaces_and_multiple_toggles():
    assert view.matrix_pick({}, "trust", "agree", False) == {"trust": ["agree"]}
    assert view.matrix_pick({"trust": ["agree"]}, "trust", "neutral", False) == {"trust": ["neutral"]}
    assert view.matrix_pick({"trust": ["agree"]}, "trust", "neutral", True) == {"trust": ["agree", "neutral"]}
    assert view.matrix_pick({"trust": ["agree"]}, "trust", "agree", True) == {}


def test_unknown_steps_are_the_welcome_step():
    assert view.step_of("questions") == "questions"
    assert view.step_of("../etc") == "welcome"
    assert view.step_of(None) == "welcome"


def test_display_values_of_each_answer_kind():
    single = view.display_values({"type": "single-choice"}, {"value": "", "isOther": True}, [])
    assert single["single_value"] == view.OTHER_VALUE and single["other_text"] == ""
    multi = view.display_values({"type": "multi-choice"}, {"value": ["a"], "isOther": True, "otherText": "x"}, [])
    assert multi["multi_values"] == ["a", view.OTHER_VALUE] and multi["other_text"] == "x"
    text = view.display_values({"type": "long-text"}, {"value": "one two three"}, [])
    assert text["text_value"] == "one two three" and text["word_count"] == 3
    assert view.display_values({"type": "number"}, {"value": 2.5}, [])["number_text"] == "2.5"
    assert view.display_values({"type": "number"}, {"value": None}, [])["number_text"] == ""
    options = [{"value": "a", "label": "A"}, {"value": "b", "label": "B"}]
    rank = view.display_values({"type": "rank"}, {"value": ["b"]}, options)
    assert rank["rank_started"] and [o["value"] for o in rank["rank_options"]] == ["b", "a"]
    assert view.display_values({"type": "rating"}, {"value": 4}, [])["rating_value"] == "4"
    assert view.display_values({"type": "matrix"}, {"value": {"s": ["x"]}}, [])["matrix_value"] == {"s": ["x"]}
    # A value of the wrong shape shows nothing rather than breaking the page.
    broken = view.display_values({"type": "multi-choice"}, {"value": "not-a-list"}, [])
    assert broken["multi_values"] == [] and broken["text_value"] == ""
