"""The rules of a bonus given through the API (portal/domain/bonuses.py): its amount, its note, what it is for."""

from __future__ import annotations

import pytest

from portal.domain import bonuses


@pytest.mark.parametrize("cents", [bonuses.MIN_CENTS, 500, bonuses.MAX_CENTS])
def test_amounts_within_the_limits_are_taken(cents):
    assert bonuses.amount_problem(cents) == ""


@pytest.mark.parametrize("cents", [0, -100, bonuses.MIN_CENTS - 1, bonuses.MAX_CENTS + 1, 5.0, "500", True, None])
def test_other_amounts_are_refused_with_the_limits(cents):
    assert bonuses.amount_problem(cents) == bonuses.AMOUNT_OUT_OF_RANGE
    assert "$1 to $500" in bonuses.AMOUNT_OUT_OF_RANGE


def test_a_note_is_optional_trimmed_and_limited():
    assert bonuses.clean_note(None) == (None, "")
    assert bonuses.clean_note("   ") == (None, "")
    assert bonuses.clean_note("  Thanks ") == ("Thanks", "")
    assert bonuses.clean_note("x" * bonuses.NOTE_MAX) == ("x" * bonuses.NOTE_MAX, "")
    assert bonuses.clean_note("x" * (bonuses.NOTE_MAX + 1)) == (None, bonuses.NOTE_TOO_LONG)
    assert bonuses.clean_note(5) == (None, bonuses.NOTE_TOO_LONG)


def test_a_bonus_names_a_review_or_a_test():
    assert bonuses.target_problem(None, None) == bonuses.TARGET_REQUIRED
    assert bonuses.target_problem(1, None) == bonuses.target_problem(None, 2) == bonuses.target_problem(1, 2) == ""
