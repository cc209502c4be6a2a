"""Bonuses (issue 39): an extra payment staff give a participant through the API for a review or a test they took
part in, on top of the test's reward.

A bonus is a reward of its own (Reward.kind 'bonus'), payable at once (approved when given) and paid like any
other reward; it names its test (a review's bonus names the review's test; the review itself is in the audit row,
as a review has one reward of its own). Its amount is from MIN_CENTS to MAX_CENTS, the limits of a batch's payout
override (portal/domain/staff/incentives.py). Pure: no I/O.
"""

from __future__ import annotations

from portal.domain import payouts
from portal.domain.staff import incentives

BONUS = payouts.BONUS  # Reward.kind
MIN_CENTS, MAX_CENTS = incentives.MIN_OVERRIDE_CENTS, incentives.MAX_OVERRIDE_CENTS
NOTE_MAX = 500

AMOUNT_OUT_OF_RANGE = (
    f"A bonus is from ${MIN_CENTS // 100} to ${MAX_CENTS // 100:,} (amount_cents {MIN_CENTS} to {MAX_CENTS:,})."
)
NOTE_TOO_LONG = f"The note can be at most {NOTE_MAX} characters."
TARGET_REQUIRED = "Name the review or the test the bonus is for (review_id or test_id)."
NOT_THEIR_REVIEW = "This review is not the participant's."
REVIEW_NOT_OF_TEST = "This review is not of that test."
NOT_IN_TEST = "The participant has no review of this test and was not invited to it."
NO_PARTICIPANT = "This participant does not exist."
NOT_ACTIVE = "This participant's account is deactivated or deleted: it cannot be given a bonus."
NO_REVIEW = "This review does not exist."
NO_TEST = "This test does not exist."


def amount_problem(cents: object) -> str:
    """'' for a whole number of cents within the limits, else the message."""
    if isinstance(cents, bool) or not isinstance(cents, int) or not MIN_CENTS <= cents <= MAX_CENTS:
        return AMOUNT_OUT_OF_RANGE
    return ""


def clean_note(note: object) -> tuple[str | None, str]:
    """(the note, '') or (None, the message): a note is optional text of at most NOTE_MAX characters."""
    if note is None:
        return None, ""
    if not isinstance(note, str):
        return None, NOTE_TOO_LONG
    text = note.strip()
    if len(text) > NOTE_MAX:
        return None, NOTE_TOO_LONG
    return text or None, ""


def target_problem(review_id: object, test_id: object) -> str:
    """'' when a review or a test is named, else the message."""
    return "" if review_id is not None or test_id is not None else TARGET_REQUIRED
