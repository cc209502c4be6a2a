"""The home table's invite cues (issue 40, item 3): the time left of an invite's 24 hours, and what an invite that
cannot be started reads."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from portal.domain import invites as rules

NOW = datetime(2026, 12, 2, 7, 0, tzinfo=UTC)


def test_time_left_of_an_open_invite():
    assert rules.time_left(rules.OPEN, NOW + timedelta(hours=23, minutes=5, seconds=30), NOW) == "23 h 5 min left"
    assert rules.time_left(rules.OPEN, NOW + timedelta(minutes=45, seconds=59), NOW) == "45 min left"
    assert rules.time_left(rules.OPEN, NOW + timedelta(seconds=30), NOW) == "Less than a minute left"
    assert rules.time_left(rules.OPEN, NOW - timedelta(minutes=1), NOW) == "Less than a minute left"
    for status in (rules.FILLED, rules.COMPLETED, rules.EXPIRED, rules.CANCELED):
        assert rules.time_left(status, NOW + timedelta(hours=2), NOW) == ""
    assert rules.time_left(rules.OPEN, None, NOW) == ""


def test_what_blocks_an_open_invite():
    assert rules.test_blocks(rules.OPEN, "running") == ""
    assert rules.test_blocks(rules.OPEN, "running", screened_out=True) == "Not a fit"
    assert rules.test_blocks(rules.OPEN, "paused") == "Paused"
    assert rules.test_blocks(rules.OPEN, "stopped") == "No longer available"
    assert rules.test_blocks(rules.COMPLETED, "stopped", screened_out=True) == ""
