"""Referral rules: code format, link, TTL, loops, self-referral and the referee's status."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from portal.domain import referrals as rules

NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)


def test_new_codes_are_random_well_formed_and_unambiguous():
    codes = {rules.new_code() for _ in range(500)}
    assert len(codes) == 500
    for code in codes:
        assert len(code) == rules.CODE_LENGTH
        assert rules.normalize_code(code) == code
        assert not set(code) & set("01ILO")


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("DANA2026", "DANA2026"),
        (" dana2026 ", "DANA2026"),
        ("ABCD", "ABCD"),
        ("ABC", None),
        ("A" * 33, None),
        ("FRIEND-7", None),
        ("x' OR 1=1", None),
        ("", None),
        (None, None),
        (12345, None),
        (["DANA2026"], None),
    ],
)
def test_normalize_code(raw, expected):
    assert rules.normalize_code(raw) == expected


def test_referral_link():
    assert (
        rules.referral_link("http://localhost:3000/", "DANA2026")
        == "http://localhost:3000/sign-up?REFERRALCODE=DANA2026"
    )


@pytest.mark.parametrize(
    ("ttl", "expired"),
    [
        (None, False),
        ("", False),
        (str(int((NOW + timedelta(days=1)).timestamp())), False),
        (str(int((NOW - timedelta(seconds=1)).timestamp())), True),
        (str(int((NOW + timedelta(hours=1)).timestamp() * 1000)), False),  # milliseconds
        (str(int((NOW - timedelta(hours=1)).timestamp() * 1000)), True),
        ("2026-11-22T00:00:00Z", False),
        ("2026-11-20T00:00:00+00:00", True),
        ("2026-11-21T12:00:00", True),  # exactly now: expired; naive means UTC
        ("next tuesday", True),  # unreadable: cannot prove it is valid
    ],
)
def test_ttl(ttl, expired):
    assert rules.is_expired(ttl, NOW) is expired


def test_loops():
    # 2 referred 3, 1 referred 2.
    referrer_of = {3: 2, 2: 1}
    assert rules.creates_loop(3, 1, referrer_of)  # 3 -> 1 would close 1 -> 2 -> 3 -> 1
    assert rules.creates_loop(2, 1, referrer_of)  # A -> B -> A
    assert not rules.creates_loop(3, 4, referrer_of)
    assert not rules.creates_loop(1, 4, referrer_of)
    assert rules.creates_loop(5, 5, {})  # self
    # A broken chain with its own cycle (not involving the referee) ends.
    assert not rules.creates_loop(7, 9, {7: 8, 8: 7})


def _refusal(referrer, referee, *, claimed_by=None, referrer_of=None, expired=False):
    return rules.refusal(
        referrer_id=referrer,
        referee_id=referee,
        referee_already_referred_by=claimed_by,
        referrer_of=referrer_of or {},
        expired=expired,
    )


def test_refusals():
    assert _refusal(1, 2) is None
    assert _refusal(None, 2) == rules.REFUSED_UNKNOWN_CODE
    assert _refusal(1, 2, expired=True) == rules.REFUSED_EXPIRED
    assert _refusal(2, 2) == rules.REFUSED_SELF
    assert _refusal(1, 2, claimed_by=3) == rules.REFUSED_ALREADY_CLAIMED
    assert _refusal(1, 2, claimed_by=1, referrer_of={2: 1}) is None  # the same claim again: retrieved
    assert _refusal(1, 2, referrer_of={1: 2}) == rules.REFUSED_LOOP
    assert _refusal(1, 3, referrer_of={1: 2, 2: 3}) == rules.REFUSED_LOOP


def test_referee_status():
    assert rules.referee_status(bonus_cents=None, bonus_paid=False, has_reward=False) == "Signed up"
    assert rules.referee_status(bonus_cents=None, bonus_paid=False, has_reward=True) == "Reward pending"
    assert rules.referee_status(bonus_cents=2000, bonus_paid=True, has_reward=True) == "Reward paid $20"


def test_labels():
    assert rules.total_earned_label(0) == "$0"
    assert rules.total_earned_label(4000) == "$40"
    assert rules.joined_label(datetime(2026, 3, 4, tzinfo=UTC)) == "Mar 4, 2026"
    assert rules.TITLE == "Help to grow the participant community. Earn extra cash."


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        (None, ""),
        ("", ""),
        ("https://widget.example.com/p/1", "https://widget.example.com/p/1"),
        ("javascript:alert(1)", ""),
        ("//evil.example.com", ""),
    ],
)
def test_embeddable_widget_url(url, expected):
    assert rules.embeddable_widget_url(url) == expected
