"""The one appeal's rules (domain/staff/appeals.py): the 14-day window, the message, the decision's note."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from portal.domain.staff import appeals as rules

REJECTED = datetime(2030, 3, 1, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("status", "rejected_at", "appealed", "now", "can"),
    [
        ("rejected", REJECTED, False, REJECTED + timedelta(days=1), True),
        ("rejected", REJECTED, False, REJECTED + timedelta(days=14), True),  # the last instant
        ("rejected", REJECTED, False, REJECTED + timedelta(days=14, seconds=1), False),
        ("rejected", REJECTED, True, REJECTED + timedelta(days=1), False),  # once
        ("approved", REJECTED, False, REJECTED, False),
        ("excluded", REJECTED, False, REJECTED, False),
        ("rejected", None, False, REJECTED, False),  # no date: before decisions were dated
        ("rejected", REJECTED.replace(tzinfo=None), False, REJECTED + timedelta(days=2), True),  # naive from SQLite
    ],
)
def test_who_may_appeal_and_until_when(status, rejected_at, appealed, now, can):
    assert rules.can_appeal(status, rejected_at, appealed, now) is can


def test_the_message_and_the_note():
    assert rules.message_problem("Please look again.") == ""
    for empty in (None, "", "   ", 3, ["x"]):
        assert rules.message_problem(empty) == rules.MESSAGE_REQUIRED
    assert rules.message_problem("x" * 2000) == ""
    assert rules.message_problem("x" * 2001) == rules.MESSAGE_TOO_LONG
    assert rules.message_problem("  " + "x" * 2000 + "  ") == ""  # counted once trimmed
    assert rules.note_problem(None, overturn=True) == ""
    assert rules.note_problem("", overturn=False) == rules.NOTE_REQUIRED
    assert rules.note_problem("  ", overturn=False) == rules.NOTE_REQUIRED
    assert rules.note_problem("Two words.", overturn=False) == ""
    assert rules.note_problem("x" * 1001, overturn=True) == rules.NOTE_TOO_LONG
    assert rules.note_problem(5, overturn=True) == rules.NOTE_TOO_LONG
    assert rules.appeal_closes(REJECTED) == REJECTED + timedelta(days=14)
    assert {rules.decision_words(s) != "" for s in rules.STATUSES} == {True} and rules.decision_words("x") == ""
