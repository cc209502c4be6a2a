"""Invites: what a status means, what clicking an invite does, and labels."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache

OPEN, FILLED, COMPLETED, EXPIRED, CANCELED = "open", "filled", "completed", "expired", "canceled"
STATUSES = (OPEN, FILLED, COMPLETED, EXPIRED, CANCELED)
STATUS_LABELS = {OPEN: "Open", FILLED: "Filled", COMPLETED: "Completed", EXPIRED: "Expired", CANCELED: "Canceled"}

MSG_FILLED = "This test has already been filled."
MSG_COMPLETED = "This test has already been completed."
MSG_INVALID = "This invite is no longer valid."

REWARD_STATUS = "Complete"


def effective_status(status: str, expires_at: datetime | None, now: datetime) -> str:
    """An open invite whose 24 hours have passed counts as expired everywhere."""
    if status == OPEN and expires_at is not None and expires_at <= now:
        return EXPIRED
    return status


# An open invite whose test is not running cannot be started (issue 38's pause; issue 40: no 'Start test' there).
TEST_PAUSED_LABEL = "Paused"
TEST_UNAVAILABLE_LABEL = "No longer available"
# The participant's answers to the test's screening question did not match it (issue 40): it leaves the open list.
SCREENED_OUT_LABEL = "Not a fit"


def test_blocks(status: str, test_status: str | None, screened_out: bool = False) -> str:
    """What an open invite reads when it cannot be started ('' when it may be): the screener said no, or the test is
    not running."""
    if status != OPEN:
        return ""
    if screened_out:
        return SCREENED_OUT_LABEL
    if test_status in (None, "running"):
        return ""
    return TEST_PAUSED_LABEL if test_status == "paused" else TEST_UNAVAILABLE_LABEL


def time_left(status: str, expires_at: datetime | None, now: datetime) -> str:
    """How long an open invite can still be started: '23 h 5 min left', '45 min left', 'Less than a minute left'."""
    if status != OPEN or expires_at is None:
        return ""
    minutes = int((expires_at - now).total_seconds() // 60)
    if minutes < 1:
        return "Less than a minute left"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min left" if hours else f"{minutes} min left"


def status_label(status: str) -> str:
    return STATUS_LABELS.get(status, status.capitalize() if isinstance(status, str) else "")


@dataclass(frozen=True)
class InviteClick:
    redirect: str | None = None
    message: str | None = None


def rating_path(test_id: int) -> str:
    return f"/test/{int(test_id)}/rate"


def click_outcome(status: str, test_id: int) -> InviteClick:
    """Open (and not expired): go to the test; filled / completed: say so; anything else: no longer valid."""
    if status == OPEN:
        return InviteClick(redirect=rating_path(test_id))
    if status == FILLED:
        return InviteClick(message=MSG_FILLED)
    if status == COMPLETED:
        return InviteClick(message=MSG_COMPLETED)
    return InviteClick(message=MSG_INVALID)


@lru_cache(maxsize=256)  # a few dozen types, formatted for every row of a table page
def product_type_label(product_type: str) -> str:
    """'landing-page' -> 'Landing page'."""
    text = (product_type or "").replace("-", " ").strip()
    return text[:1].upper() + text[1:]
