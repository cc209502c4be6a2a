"""The highlight and pricing kind's rules (portal/domain/taking/kinds/highlight.py) and the kind registry."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from portal.domain.taking import kinds
from portal.domain.taking.kinds import highlight as hl

ROOT = Path(__file__).resolve().parents[2]


def content(name: str) -> dict:
    doc = json.loads((ROOT / "portal/data/demo_tests" / name).read_text())
    return {
        "productType": doc["productType"],
        "questions": doc.get("questions", {}),
        "selectedAreas": doc.get("selectedAreas", []),
    }


LANDING = content("02-landing-page.json")


@pytest.mark.parametrize(
    ("product_type", "kind", "view"),
    [
        ("survey", "survey", "survey"),
        ("market-research", "survey", "survey"),
        ("landing-page", "highlight", "highlight"),
        ("full-page", "highlight", "highlight"),
        ("b2b-user-testing", "highlight", "highlight"),
        ("standard", "highlight", "highlight"),
        ("pricing-test", "pricing", "highlight"),
        ("preference-test", "preference", "preference"),
        ("video-test", "video", "video"),
    ],
)
def test_the_registry_names_each_product_types_kind_and_view(product_type, kind, view):
    found = kinds.kind_of(product_type)
    assert (found.name, found.view) == (kind, view)


def test_which_kinds_are_taken_in_the_portal():
    assert {k.name for k in kinds.KINDS.values() if k.taken_in_portal} == {
        "survey",
        "highlight",
        "pricing",
        "preference",
    }


@pytest.mark.parametrize(
    ("product_type", "title"),
    [
        ("landing-page", "Landing page test"),
        ("pricing-test", "Pricing test"),
        ("full-page", "Full page test"),
        ("b2b-user-testing", "B2B user testing test"),
        ("standard", "Standard test"),
    ],
)
def test_the_intro_title_is_the_tier_label_and_test(product_type, title):
    assert hl.intro_title(product_type) == title


def test_the_landing_page_tier_says_offering_and_others_highlight():
    assert hl.area_label("landing-page", 2, 3) == "Offering 2 of 3"
    assert hl.area_label("pricing-test", 1, 3) == "Highlight 1 of 3"


def test_blocks_come_in_order_and_empty_ones_are_left_out():
    assert [b.key for b in hl.blocks(LANDING)] == [
        "first-impression",
        "highlight-1",
        "highlight-2",
        "highlight-3",
        "post-test",
    ]
    assert [b.key for b in hl.blocks(content("11-standard.json"))] == ["highlight-1"]
    assert [q["key"] for q in hl.questions(LANDING)][:2] == ["lp-first-impression", "lp-hero"]


def test_the_forward_button_says_next_highlight_then_proceed_then_submit():
    labels = [hl.next_label(LANDING, i, has_end_step=False) for i in range(len(hl.questions(LANDING)))]
    assert labels == ["Next Highlight", "Next Highlight", "Next Highlight", "Proceed", "Next", "Submit"]
    assert hl.next_label(LANDING, 5, has_end_step=True) == "Proceed"


@pytest.mark.parametrize(
    ("panel", "title", "button"),
    [
        ("b2b", "Welcome!", "Got it"),
        ("custom", "Welcome!", "Got it"),
        ("mturk", "Instructions", "Got it"),
        ("external", "Instructions", "Got it"),
    ],
)
def test_the_instructions_modal_by_panel_with_an_empty_welcome_modal(panel, title, button):
    modal = hl.instructions(panel, {})
    assert (modal["title"], modal["button"]) == (title, button)
    assert modal["body"] == list(hl.INSTRUCTIONS)


def test_custom_and_b2b_panels_show_the_tests_own_welcome_modal_and_mturk_never_does():
    own = {"title": "Hello", "body": "Read it well.", "button": "Go"}
    assert hl.instructions("custom", own) == {"title": "Hello", "body": ["Read it well."], "button": "Go"}
    assert hl.instructions("b2b", {"body": "Only a body"})["title"] == "Welcome!"
    assert hl.instructions("mturk", own)["title"] == "Instructions"


def test_an_area_is_a_percent_box():
    assert hl.area_box({"from": [5, 4], "to": [95, 31]}) == {"left": "5%", "top": "4%", "width": "90%", "height": "27%"}


def test_grouping_a_draft_gives_one_answer_per_question_of_each_block():
    grouped = hl.group(LANDING, {"lp-hero": {"type": "long-text", "value": "x"}})
    assert grouped["highlight-1"] == [{"type": "long-text", "value": "x"}]
    assert grouped["post-test"] == [{"type": "rating", "value": None}, {"type": "single-choice", "value": None}]
    errors = hl.validate(LANDING, grouped)
    assert errors["answers.highlight-1.0.value"] == "Your answer is too short, please make it at least 15 words."
    assert errors["answers.post-test.1.value"] == "Answer is required"
    assert hl.validate(LANDING, ["not", "a", "dict"]) == {"answers": hl.NOT_AN_OBJECT}


def test_reading_signals_add_up_and_keep_the_deepest_scroll():
    signals = hl.add_seconds(hl.add_seconds({}, "block:x", 2.4), "block:x", 3.6)
    assert signals == {"block:x": 6.0}  # to 0.1 s
    assert hl.add_seconds({}, "b", -5) == {"b": 0}
    assert hl.deepest_scroll(hl.deepest_scroll({}, "scroll:page", 70), "scroll:page", 40) == {"scroll:page": 70}
    assert hl.deepest_scroll({}, "scroll:page", 250) == {"scroll:page": 100}
    assert hl.deepest_scroll({}, "scroll:page", "deep") == {}
