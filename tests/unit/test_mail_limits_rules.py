"""The e-mail limits' rule table and wait message (portal/domain/mail_limits.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from portal.domain import mail_limits
from portal.domain.throttling import Limit, longest_wait

NOW = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("seconds", "message"),
    [
        (0, "Please wait 1 second before asking for another email."),
        (1, "Please wait 1 second before asking for another email."),
        (45, "Please wait 45 seconds before asking for another email."),
        (60, "Please wait 60 seconds before asking for another email."),
        (119, "Please wait 119 seconds before asking for another email."),
        (120, "Please wait 2 minutes before asking for another email."),
        (121, "Please wait 3 minutes before asking for another email."),
        (3599, "Please wait 60 minutes before asking for another email."),
    ],
)
def test_wait_message(seconds, message):
    assert mail_limits.wait_message(seconds) == message


def test_verification_limits():
    limits = mail_limits.verification_limits(account_id=7, kind="verify-work-email", address="pat@initech.example")
    assert limits == [
        Limit("mail:verify-work-email:account:7", 1, 60),
        Limit("mail:verify-work-email:account:7", 5, 3600),
        Limit("mail:verify-work-email:to:pat@initech.example", 1, 60),
        Limit("mail:verify-any:to:pat@initech.example", 5, 3600),
    ]
    assert mail_limits.keys_to_record(limits) == [
        "mail:verify-work-email:account:7",
        "mail:verify-work-email:to:pat@initech.example",
        "mail:verify-any:to:pat@initech.example",
    ]


def test_reset_limits_know_only_the_address():
    assert mail_limits.reset_limits(address="pat@initech.example", cooldown_seconds=30) == [
        Limit("mail:reset-password:to:pat@initech.example", 1, 30)
    ]


def test_longest_wait_takes_the_strictest_limit():
    limits = mail_limits.verification_limits(account_id=7, kind="verify-email", address="a@b.example")
    assert longest_wait({}, limits, now=NOW) == 0
    just_sent = {key: [NOW - timedelta(seconds=15)] for key in mail_limits.keys_to_record(limits)}
    assert longest_wait(just_sent, limits, now=NOW) == 45
    five = [NOW - timedelta(minutes=m) for m in (50, 40, 30, 20, 10)]
    assert longest_wait({"mail:verify-any:to:a@b.example": five}, limits, now=NOW) == 600  # the oldest leaves the hour
    assert longest_wait({"mail:verify-email:account:7": five[1:]}, limits, now=NOW) == 0


def test_a_zero_limit_or_window_is_off():
    events = {"k": [NOW - timedelta(seconds=1)]}
    assert longest_wait(events, [Limit("k", 1, 0), Limit("k", 0, 60)], now=NOW) == 0
