"""Loading a test on the rating route: how stored rows read as access facts.

Pure rules, no database. The service (portal/services/taking/loading.py) reads the rows, these
functions turn them into the values of `test_access.AccessFacts`, and `test_access` decides.
The choices are recorded in docs/decisions.md ("Loading a test (issue 5)").
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime, timedelta

from portal.domain.reference_data import SENIORITY_KEYS
from portal.domain.taking import kinds
from portal.domain.taking.access import (
    INVITE_ONLY_PANELS,
    NOT_INVITED,
    OK,
    SCREENER,
    SESSION_ACTIVE,
    SESSION_EXPIRED_STATE,
    SESSION_NONE,
    SIGN_IN,
)

# Profile seniority keys from the highest level down (the profile's option order).
SENIORITY_RANK: tuple[str, ...] = SENIORITY_KEYS  # founder, senior, middle, specialist
# A session that ran out: the status the service sets, and 'cleared' (time up, or given up).
ENDED_SESSION_STATUSES = frozenset({"expired", "cleared"})
# Test ids are PostgreSQL integers; a larger number names no test.
MAX_TEST_ID = 2**31 - 1
MAX_PROJECT_ID_LENGTH = 200


def aware(value: datetime) -> datetime:
    """Stored datetimes are UTC; SQLite may give them back without a zone."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value


def quota_seniority(levels: object) -> str | None:
    """The one seniority a participant counts under for quotas: the highest level they hold.

    A profile lists at most two levels; the highest in the order founder, senior, middle,
    specialist wins. Unknown values are ignored; no known level gives None (no quota applies).
    """
    if not isinstance(levels, Iterable) or isinstance(levels, (str, bytes)):
        return None
    held = {level for level in levels if isinstance(level, str)}
    return next((level for level in SENIORITY_RANK if level in held), None)


def session_state(status: str | None, deadline_at: datetime | None, now: datetime, *, grace_seconds: int = 0) -> str:
    """The participant's latest review session as an access fact (test_access.SESSION_STATES).

    active before its deadline (plus the grace the session service also allows) -> active;
    active past it, 'expired' or 'cleared' (the timer ran out and cleared it) -> expired
    (the page offers Restart); no session or a submitted one -> none.
    """
    if status is None:
        return SESSION_NONE
    if status == "active":
        if deadline_at is not None and now <= aware(deadline_at) + timedelta(seconds=grace_seconds):
            return SESSION_ACTIVE
        return SESSION_EXPIRED_STATE
    if status in ENDED_SESSION_STATUSES:
        return SESSION_EXPIRED_STATE
    return SESSION_NONE


def signed_out_state(state: str) -> str:
    """A signed-out visitor holds no account invite to check.

    For them 'not-invited' is not decided here: without a respondent project id they go to
    sign-in (and are checked once signed in); a respondent of the external service is checked
    by the respondent lookup. Every other state stands.
    """
    return OK if state == NOT_INVITED else state


def respondent_project_id(value: object) -> str | None:
    """The respondent project id from the URL: non-blank text of at most 200 characters, else None."""
    if not isinstance(value, str):
        return None
    text = value.strip()
    return text if 0 < len(text) <= MAX_PROJECT_ID_LENGTH else None


def is_qualification_based(*, panel: str, has_qualifications: bool) -> bool:
    """A custom panel or any qualification: the audience is chosen by qualification
    (the thank-you page shows the sign-up promo, personal info asks the custom fields)."""
    return panel == "custom" or has_qualifications


def taking_views() -> frozenset[str]:
    """The views of taking a test: the screener and every kind's (the kinds registry)."""
    return frozenset({SCREENER, *(k.view for k in kinds.KINDS.values())})


def signed_out_view(*, view: str | None, panel: str, has_public_qualifications: bool) -> tuple[str, str | None]:
    """(access state, view) for a visitor without an account once the test allows them in.

    Only tests with public qualifications are taken without signing in: a respondent of the
    external service (external panel) who holds no invite the portal can check is not invited;
    anyone else signs in first (docs/decisions.md, "Public respondents")."""
    if view not in taking_views() or has_public_qualifications:
        return OK, view
    if panel in INVITE_ONLY_PANELS:
        return NOT_INVITED, None
    return OK, SIGN_IN
