"""The rules of 'Report a problem' (issue 38, item 4): categories and texts, the pause threshold, pro-rata pay."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from portal.domain import problem_reports as rules

T0 = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("taking", "threshold"),
    [(1, 2), (2, 2), (15, 2), (16, 2), (20, 3), (40, 6), (100, 15), (133, 20), (134, 20), (135, 20), (10_000, 20)],
)
def test_the_pause_threshold_is_2_then_15_percent_then_20(taking, threshold):
    assert rules.pause_threshold(taking) == threshold


def test_the_threshold_never_falls_as_more_take_part():
    values = [rules.pause_threshold(n) for n in range(0, 400)]
    assert values == sorted(values) and values[0] == 2 and values[-1] == 20


@pytest.mark.parametrize(
    ("reporters", "taking", "paused"), [(1, 10, False), (2, 10, True), (2, 40, False), (6, 40, True), (19, 500, False)]
)
def test_should_pause(reporters, taking, paused):
    assert rules.should_pause(reporters, taking) is paused


def test_a_report_needs_a_known_category_and_a_text():
    assert rules.clean("timer", "  The clock jumped.  ") == ("timer", "The clock jumped.", {})
    assert rules.clean("", "x")[2] == {"category": rules.CATEGORY_REQUIRED}
    assert rules.clean("weather", "x")[2] == {"category": rules.CATEGORY_REQUIRED}
    assert rules.clean(["timer"], "x")[2] == {"category": rules.CATEGORY_REQUIRED}
    assert rules.clean("page", "   ")[2] == {"text": rules.TEXT_REQUIRED}
    assert rules.clean("page", None)[2] == {"text": rules.TEXT_REQUIRED}
    assert rules.clean("page", "x" * (rules.TEXT_MAX + 1))[2] == {"text": rules.TEXT_TOO_LONG}
    assert rules.clean(None, None)[2] == {"category": rules.CATEGORY_REQUIRED, "text": rules.TEXT_REQUIRED}
    assert [c.label for c in rules.CATEGORIES] == [
        "The page will not load",
        "A question is unclear or wrong",
        "Timer problem",
        "Something else",
    ]


def test_pro_rata_is_the_share_of_the_time_used_at_least_a_cent_at_most_the_whole():
    assert rules.pro_rata_cents(3000, T0, T0 + timedelta(minutes=5), 900) == 1000
    assert rules.pro_rata_cents(3000, T0, T0 + timedelta(minutes=7, seconds=30), 900) == 1500
    assert rules.pro_rata_cents(1000, T0, T0 + timedelta(seconds=1), 3600) == 1  # ceil of 0.28 cents
    assert rules.pro_rata_cents(3000, T0, T0 + timedelta(hours=3), 900) == 3000
    assert rules.pro_rata_cents(3000, T0, T0 - timedelta(minutes=1), 900) == 1  # a clock behind: no negative pay
    assert rules.pro_rata_cents(0, T0, T0 + timedelta(minutes=5), 900) == 0
    assert rules.pro_rata_cents(3000, T0, T0 + timedelta(minutes=5), 0) == 0


def test_pause_length():
    assert rules.pause_length_seconds(T0, T0 + timedelta(minutes=3)) == 180
    assert rules.pause_length_seconds(None, T0) == 0
    assert rules.pause_length_seconds(T0, T0 - timedelta(minutes=3)) == 0
