"""Deciding reviews: statuses, rejection reasons, automatic approval and when a reward is expected to be paid.

Decisions (docs/decisions.md, 'Reviews and rewards'):
- A review is 'submitted' until staff approve, exclude or reject it (issue 36). Excluding pays the
  participant exactly like approving (the reward becomes payable) but leaves the review out of results and
  exports by default (portal/domain/results/filters.EXCLUDED): the answer to a doubtful review, rather than a
  rejection. Rejecting needs one reason from
  REJECTION_REASONS and may carry a note; the participant sees the reason's label. Rejecting cancels
  the reward (CANCELED); approving makes it payable (PENDING with approved_at).
- A review nobody decided within AUTO_APPROVE_DAYS (settings: AUTO_APPROVE_DAYS, default 14) is
  approved by the scheduled job; staff see the date in the reviews table.
- An approved reward is expected to be paid within 5 business days of approval (7 to 10 for
  crowd-work respondents, who are paid through their platform).
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta

SUBMITTED, APPROVED, EXCLUDED, REJECTED = "submitted", "approved", "excluded", "rejected"
STATUSES = (SUBMITTED, APPROVED, EXCLUDED, REJECTED)
STATUS_LABELS = {SUBMITTED: "Submitted", APPROVED: "Approved", EXCLUDED: "Excluded", REJECTED: "Rejected"}
# The decisions whose reward becomes payable (PENDING with approved_at); a rejection cancels it.
PAID_DECISIONS = frozenset({APPROVED, EXCLUDED})

REJECTION_REASONS: dict[str, str] = {
    "low-effort": "Low effort answers",
    "ai-generated": "AI-generated answers",
    "off-topic": "Answers are off-topic",
    "failed-attention-check": "Failed attention check",
    "duplicate": "Duplicate or fraudulent participation",
    "not-qualified": "Does not match the test's audience",
}
REASON_REQUIRED = "Choose a reason for the rejection."
NOTE_MAX = 1000
NOTE_TOO_LONG = f"The note can be at most {NOTE_MAX} characters."
AUTO_APPROVE_DAYS = 14
PAYMENT_BUSINESS_DAYS = 5
CROWD_WORK_BUSINESS_DAYS = (7, 10)


# The evidence a rejection rests on (issue 36): flag keys staff chose and a short text, both shown to the
# participant in plain words. The keys are the quality flags' (portal/domain/quality/, issue 36 item 2); until they
# are connected, EVIDENCE_FLAGS names the ones staff can choose here, each with the words the participant reads.
EVIDENCE_FLAGS: dict[str, str] = {
    # The keys are those of domain/quality/flags.RULES (qrules), so a flag shown to staff can be attached as it is.
    "copied": "The same text as another participant's answers",
    "speeder": "Finished far faster than most participants",
    "pasted": "Pasted most of the written answers",
    "repeated": "The same text for two questions",
    "left-tab": "Left the page while writing answers",
    "straight-lining": "Gave the same answer on every row of a grid",
    "echo": "Answers repeat the question",
    "too-short": "Answers far below the word minimum",
}
EVIDENCE_MAX = 500
FLAGS_MAX = 20
_FLAG_KEY = re.compile(r"^[a-z0-9][a-z0-9:._-]{0,59}$")
BAD_FLAGS = "Choose the evidence from the list."
EVIDENCE_TOO_LONG = f"The evidence can be at most {EVIDENCE_MAX} characters."


def evidence_problem(flags: object, evidence: object) -> str:
    """'' when `flags` is None or a list of at most FLAGS_MAX flag keys, and `evidence` None or a text of at most
    EVIDENCE_MAX characters; otherwise the message."""
    if flags is not None and (
        not isinstance(flags, list)
        or len(flags) > FLAGS_MAX
        or not all(isinstance(f, str) and _FLAG_KEY.match(f) for f in flags)
    ):
        return BAD_FLAGS
    if evidence is not None and (not isinstance(evidence, str) or len(evidence) > EVIDENCE_MAX):
        return EVIDENCE_TOO_LONG
    return ""


def flag_words(key: str) -> str:
    """What a flag key means, in the participant's words (an unknown key reads as itself, spaced)."""
    return EVIDENCE_FLAGS.get(key) or key.replace("-", " ").replace("_", " ").replace(":", ": ").capitalize()


def evidence_text(flags: list[str] | None, evidence: str | None) -> str:
    """The evidence of a rejection as the participant reads it: 'Finished far faster than most participants;
    Pasted most of the written answers. 43 seconds for a 15-minute test.' ('' when there is none)."""
    parts = []
    if flags:
        parts.append("; ".join(flag_words(f) for f in flags) + ".")
    if evidence and evidence.strip():
        parts.append(evidence.strip())
    return " ".join(parts)


def reason_problem(reason: object, note: object) -> str:
    if not isinstance(reason, str) or reason not in REJECTION_REASONS:
        return REASON_REQUIRED
    if note is not None and (not isinstance(note, str) or len(note) > NOTE_MAX):
        return NOTE_TOO_LONG
    return ""


def auto_approve_at(submitted_at: datetime, days: int = AUTO_APPROVE_DAYS) -> datetime:
    return submitted_at + timedelta(days=days)


def add_business_days(start: date, days: int) -> date:
    current = start
    while days > 0:
        current += timedelta(days=1)
        if current.weekday() < 5:
            days -= 1
    return current


def expected_payment(approved_on: date, *, crowd_work: bool = False) -> tuple[date, date]:
    """The window in which an approved reward is paid: (earliest, latest)."""
    if crowd_work:
        low, high = CROWD_WORK_BUSINESS_DAYS
        return add_business_days(approved_on, low), add_business_days(approved_on, high)
    return approved_on, add_business_days(approved_on, PAYMENT_BUSINESS_DAYS)


# Where a participant's reward stands (the rewards tab).
STAGE_SUBMITTED, STAGE_APPROVED, STAGE_PAID, STAGE_REJECTED, STAGE_FAILED, STAGE_CANCELED = (
    "Submitted",
    "Approved",
    "Paid",
    "Rejected",
    "Failed",
    "Canceled",
)


def reward_stage(reward_status: str | None, review_status: str | None, approved: bool) -> str:
    """The label of a reward's stage from its payment status and its review's decision."""
    if reward_status == "EXECUTED":
        return STAGE_PAID
    if reward_status == "FAILED":
        return STAGE_FAILED
    if review_status == REJECTED:
        return STAGE_REJECTED
    if reward_status == "CANCELED":
        return STAGE_CANCELED
    # An excluded review is paid like an approved one: the participant sees 'Approved' (their reward's stage).
    return STAGE_APPROVED if approved or review_status in PAID_DECISIONS else STAGE_SUBMITTED
