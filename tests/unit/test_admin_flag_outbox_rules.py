"""The rules behind /admin/flags and /admin/outbox: the percentage field, override choices, flag labels,
and an outbox e-mail's status and what 'Retry now' does to its attempts."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from portal.domain.staff import flag_rules as flags
from portal.domain.staff import outbox_status as outbox

SENT_AT = datetime(2026, 1, 2, tzinfo=UTC)


@pytest.mark.parametrize(
    "value,expected",
    [
        (0, 0),
        (100, 100),
        (37, 37),
        ("0", 0),
        ("100", 100),
        (" 7 ", 7),
        ("45%", 45),
        ("45 %", 45),
        (101, None),
        (150, None),
        ("150", None),
        (-1, None),
        ("-1", None),
        ("2.5", None),
        (2.5, None),
        (1.0, None),
        ("", None),
        ("  ", None),
        ("abc", None),
        ("1e2", None),
        ("٣", None),
        ("²", None),
        ("0100", None),
        (None, None),
        (True, None),
        (False, None),
        ([50], None),
        ({"v": 50}, None),
    ],
)
def test_a_percentage_is_a_whole_number_from_0_to_100(value, expected):
    assert flags.parse_percentage(value) == expected


def test_override_choices_and_labels():
    assert [flags.parse_override(v) for v in ("on", "off", True, False, "On", "yes", 1, None)] == [
        True,
        False,
        True,
        False,
        None,
        None,
        None,
        None,
    ]
    assert [flags.override_label(v) for v in (True, False, None)] == ["on", "off", "none"]
    assert (
        flags.is_flag("referral-program") and not flags.is_flag("__class__") and not flags.is_flag(["referral-program"])
    )


def test_flag_labels_and_summaries():
    assert flags.flag_label("chat-with-your-icp") == "Chat with your ICP"
    assert flags.flag_label("referral-program") == "Referral program"
    assert [flags.flag_summary(*a) for a in ((False, 50), (False, 100), (True, 0), (True, 100), (True, 5))] == [
        "Off for everyone",
        "Off for everyone",
        "Off for everyone",
        "On for everyone",
        "On for 5% of users",
    ]


@pytest.mark.parametrize(
    "sent_at,attempts,expected",
    [
        (SENT_AT, 0, outbox.SENT),
        (SENT_AT, 8, outbox.SENT),
        (None, 0, outbox.WAITING),
        (None, 1, outbox.RETRYING),
        (None, 7, outbox.RETRYING),
        (None, 8, outbox.FAILED),
        (None, 9, outbox.FAILED),
    ],
)
def test_the_status_of_an_email(sent_at, attempts, expected):
    assert outbox.status(sent_at=sent_at, attempts=attempts, max_attempts=8) == expected


@pytest.mark.parametrize("max_attempts", [0, 1, 3, 8])
def test_the_query_bounds_are_the_same_rule_as_the_status(max_attempts):
    for attempts in range(0, 12):
        for sent_at in (None, SENT_AT):
            matching = []
            for value in outbox.STATUSES:
                sent, low, below = outbox.attempts_bounds(value, max_attempts)
                if sent == (sent_at is not None) and (
                    sent or (attempts >= low and (below is None or attempts < below))
                ):
                    matching.append(value)
            assert matching == [outbox.status(sent_at=sent_at, attempts=attempts, max_attempts=max_attempts)]


def test_retry_now_keeps_the_count_and_gives_a_failed_email_one_more_attempt():
    assert [outbox.attempts_after_retry(a, 8) for a in (0, 3, 7, 8, 12)] == [0, 3, 7, 7, 7]
    assert outbox.attempts_after_retry(0, 0) == 0
    assert outbox.can_retry(None) and not outbox.can_retry(SENT_AT)
    assert [outbox.LABELS[s] for s in outbox.STATUSES] == ["Waiting", "Retrying", "Failed", "Sent"]
