"""How stored rows read as access facts when a test loads (portal/domain/taking/loading.py)."""

from datetime import UTC, datetime, timedelta

import pytest

from portal.domain.taking import access as ta
from portal.domain.taking import loading as tl

NOW = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    "levels, expected",
    [
        (["specialist", "senior"], "senior"),
        (["middle", "founder"], "founder"),
        (["specialist", "middle"], "middle"),
        (["specialist"], "specialist"),
        (["custom", "bogus"], None),
        ([], None),
        (None, None),
        ("senior", None),  # a string is not a list of levels
        ([3, None, "middle"], "middle"),
    ],
)
def test_quota_seniority_is_the_highest_level_held(levels, expected):
    assert tl.quota_seniority(levels) == expected


@pytest.mark.parametrize(
    "status, deadline, expected",
    [
        (None, None, ta.SESSION_NONE),
        ("active", NOW + timedelta(minutes=1), ta.SESSION_ACTIVE),
        ("active", NOW, ta.SESSION_ACTIVE),
        ("active", NOW - timedelta(seconds=10), ta.SESSION_ACTIVE),  # within the grace
        ("active", NOW - timedelta(seconds=11), ta.SESSION_EXPIRED_STATE),
        ("active", None, ta.SESSION_EXPIRED_STATE),
        ("expired", NOW + timedelta(hours=1), ta.SESSION_EXPIRED_STATE),
        ("cleared", NOW + timedelta(hours=1), ta.SESSION_EXPIRED_STATE),
        ("submitted", NOW + timedelta(hours=1), ta.SESSION_NONE),
    ],
)
def test_session_state(status, deadline, expected):
    assert tl.session_state(status, deadline, NOW, grace_seconds=10) == expected


def test_session_state_reads_a_naive_deadline_as_utc():
    naive = (NOW + timedelta(minutes=1)).replace(tzinfo=None)
    assert tl.session_state("active", naive, NOW) == ta.SESSION_ACTIVE
    assert tl.session_state("active", naive, NOW + timedelta(minutes=2)) == ta.SESSION_EXPIRED_STATE


@pytest.mark.parametrize("state", [s for s in ta.ACCESS_STATES if s != ta.NOT_INVITED])
def test_signed_out_states_stand_except_not_invited(state):
    assert tl.signed_out_state(state) == state
    assert tl.signed_out_state(ta.NOT_INVITED) == ta.OK


@pytest.mark.parametrize(
    "value, expected",
    [
        ("p-1", "p-1"),
        ("  p-1 ", "p-1"),
        ("", None),
        ("   ", None),
        (None, None),
        (12, None),
        (["x"], None),
        ("x" * 200, "x" * 200),
        ("x" * 201, None),
    ],
)
def test_respondent_project_id(value, expected):
    assert tl.respondent_project_id(value) == expected
