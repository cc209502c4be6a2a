"""One appeal against a rejection (issue 36, item 4): who may appeal and until when, the message, the decision.

Decisions (docs/decisions.md, 'One appeal'):
- A participant may appeal a rejected review once, within APPEAL_DAYS of the rejection, with a message of at most
  MESSAGE_MAX characters. The appeal is 'open' until a staff member other than the one who rejected decides it:
  'overturned' (the review becomes approved and its reward payable) or 'upheld' (a note says why; the rejection
  stands).
"""

from __future__ import annotations

from datetime import datetime, timedelta

OPEN, OVERTURNED, UPHELD = "open", "overturned", "upheld"
STATUSES = (OPEN, OVERTURNED, UPHELD)
STATUS_LABELS = {OPEN: "Open", OVERTURNED: "Overturned", UPHELD: "Upheld"}
APPEAL_DAYS = 14
MESSAGE_MAX = 2000
NOTE_MAX = 1000

MESSAGE_REQUIRED = "Write why the rejection should be reconsidered."
MESSAGE_TOO_LONG = f"The message can be at most {MESSAGE_MAX} characters."
NOT_APPEALABLE = "Only a rejected review of yours can be appealed."
TOO_LATE = f"An appeal can be made within {APPEAL_DAYS} days of the rejection; this one is closed."
ALREADY_APPEALED = "This review has been appealed already: each review can be appealed once."
NOTE_REQUIRED = "Write a note saying why the rejection is upheld."
NOTE_TOO_LONG = f"The note can be at most {NOTE_MAX} characters."
OWN_REJECTION = "You rejected this review: another staff member decides its appeal."
ALREADY_DECIDED = "This appeal has been decided already."
NO_APPEAL = "This appeal does not exist."
CHOOSE = "Choose overturn or uphold."


def _naive(value: datetime) -> datetime:
    return value.replace(tzinfo=None) if value.tzinfo is not None else value


def appeal_closes(rejected_at: datetime) -> datetime:
    return rejected_at + timedelta(days=APPEAL_DAYS)


def within_window(rejected_at: datetime | None, now: datetime) -> bool:
    """Whether an appeal made `now` is in time (a rejection without a date, from before decisions were dated,
    cannot be appealed)."""
    return rejected_at is not None and _naive(now) <= _naive(appeal_closes(rejected_at))


def can_appeal(review_status: str | None, rejected_at: datetime | None, appealed: bool, now: datetime) -> bool:
    return review_status == "rejected" and not appealed and within_window(rejected_at, now)


def message_problem(message: object) -> str:
    if not isinstance(message, str) or not message.strip():
        return MESSAGE_REQUIRED
    if len(message.strip()) > MESSAGE_MAX:
        return MESSAGE_TOO_LONG
    return ""


def note_problem(note: object, *, overturn: bool) -> str:
    if note is not None and not isinstance(note, str):
        return NOTE_TOO_LONG
    text = (note or "").strip()
    if not overturn and not text:
        return NOTE_REQUIRED
    return NOTE_TOO_LONG if len(text) > NOTE_MAX else ""


def decision_words(status: str) -> str:
    """What the participant's rewards tab says of their appeal."""
    return {
        OPEN: "Appeal sent: a different staff member will decide it.",
        OVERTURNED: "Appeal accepted: the rejection was overturned and your reward is payable.",
        UPHELD: "Appeal reviewed: the rejection stands.",
    }.get(status, "")
