"""The preference kind's rules (portal/domain/taking/kinds/preference.py)."""

from __future__ import annotations

from portal.domain.taking.kinds import preference as p

IMAGES = {
    "preferenceTest": {
        "preferenceType": "image",
        "isLimited": True,
        "images": [
            {"key": "a", "name": "Alpha", "url": "/a.png"},
            {"key": "b", "name": "Beta", "url": "/b.png"},
            {"key": "c", "name": "Gamma", "url": "/c.png"},
        ],
    }
}
TEXTS = {
    "preferenceTest": {
        "preferenceType": "text",
        "textOptions": {"optionOne": "One", "optionTwo": "Two", "optionThree": "Three"},
    }
}


def test_prompts_default_by_type_and_a_custom_question_overrides():
    assert p.prompt(IMAGES) == "Which one do you like better?"
    assert p.prompt(TEXTS) == "Read these options and choose one of them."
    custom = {"preferenceTest": {**IMAGES["preferenceTest"], "customInitialQuestion": "Which hero works?"}}
    assert p.prompt(custom) == "Which hero works?"


def test_the_follow_up_names_the_letter_unless_the_test_has_its_own():
    assert p.follow_up(IMAGES, "B") == "Why did you choose concept B?"
    custom = {"preferenceTest": {**IMAGES["preferenceTest"], "customFollowUpQuestion": "What stood out?"}}
    assert p.follow_up(custom, "B") == "What stood out?"


def test_the_order_is_drawn_from_the_seed_and_lettered_as_shown():
    first = p.order(IMAGES, "account:1:9")
    assert sorted(first) == ["a", "b", "c"] and p.order(IMAGES, "account:1:9") == first  # the same every time
    assert len({tuple(p.order(IMAGES, f"account:{n}:9")) for n in range(30)}) > 1  # participants differ
    shown = p.shown(IMAGES, "account:1:9")
    assert [c["key"] for c in shown] == first and [c["letter"] for c in shown] == ["A", "B", "C"]
    assert p.order(TEXTS, "account:1:9") == [] and [c["key"] for c in p.shown(TEXTS, "x")] == ["One", "Two", "Three"]


def test_the_answer_rule():
    assert p.answer_message("", True) == "Answer is required."
    assert p.answer_message("three short words", True) == "Your answer is too short, please make it at least 15 words."
    assert p.answer_message("three short words", False) is None
    assert p.answer_message("x" * 10001, False) == p.TOO_LONG
    assert p.answer_message(None, False) == "Answer is required."
