"""Who counts as verified, who may use private routes, the throttling window, avatar colours."""

from datetime import UTC, datetime, timedelta

import pytest

from portal.domain.accounts import AVATAR_COLORS, CurrentUser, avatar_color, is_participant_verified, normalize_email
from portal.domain.throttling import retry_after_seconds


@pytest.mark.parametrize(
    ("verified", "stage", "email", "work", "expected"),
    [
        (True, "new", False, False, True),
        (False, "completed", True, True, True),
        (False, "completed", True, False, False),
        (False, "completed", False, True, False),
        (False, "registered", True, True, False),
    ],
)
def test_participant_verified(verified, stage, email, work, expected):
    assert (
        is_participant_verified(verified=verified, stage=stage, email_verified=email, work_email_verified=work)
        is expected
    )


def _user(**overrides):
    base = dict(
        account_id=1,
        email="a@b.co",
        work_email="",
        first_name="A",
        last_name="B",
        is_registration_complete=True,
        is_email_verified=True,
        is_work_email_verified=False,
        verified=False,
        stage="new",
        staff_role=None,
    )
    base.update(overrides)
    return CurrentUser(**base)


def test_private_routes_need_finished_registration_and_verified_email():
    assert _user().may_use_private_routes
    assert not _user(is_registration_complete=False).may_use_private_routes
    assert not _user(is_email_verified=False).may_use_private_routes


def test_staff_roles():
    assert _user(staff_role="super-admin").is_staff
    assert _user(staff_role="team-owner").is_staff
    assert not _user(staff_role=None).is_staff
    assert not _user(staff_role="participant").is_staff


def test_normalize_email():
    assert normalize_email("  Dana@Example.COM ") == "dana@example.com"
    assert normalize_email(None) == ""


NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)


def test_throttle_allows_below_the_limit():
    failures = [NOW - timedelta(seconds=s) for s in (10, 20, 30)]
    assert retry_after_seconds(failures, limit=4, window_seconds=900, now=NOW) == 0


def test_throttle_blocks_at_the_limit_until_the_oldest_leaves_the_window():
    failures = [NOW - timedelta(seconds=s) for s in (100, 200, 300)]
    assert retry_after_seconds(failures, limit=3, window_seconds=900, now=NOW) == 600


def test_throttle_ignores_failures_outside_the_window():
    failures = [NOW - timedelta(seconds=s) for s in (1000, 2000, 3000, 10)]
    assert retry_after_seconds(failures, limit=2, window_seconds=900, now=NOW) == 0


def test_throttle_never_locks_longer_than_one_window():
    failures = [NOW - timedelta(seconds=1)] * 50
    assert 0 < retry_after_seconds(failures, limit=10, window_seconds=900, now=NOW) <= 900


def test_avatar_colour_is_stable_and_from_the_palette():
    assert avatar_color("42") == avatar_color("42")
    assert {avatar_color(str(i)) for i in range(200)} <= set(AVATAR_COLORS)
    assert len({avatar_color(str(i)) for i in range(200)}) > 3
