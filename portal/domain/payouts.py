"""The payout ledger's rules (issue 37): the states of a reward's payout, the spec's payment status each mirrors, what
a participant reads, when payment is expected, the wait after changing the payment e-mail, and the job's backoff.

A reward: submitted (its review in review) -> approved (payable) -> sending (the order is being placed) -> sent (the
provider e-mailed the rewards link) -> paid (the link was delivered: the provider reports no redemption, see
docs/decisions.md) | failed (with the provider's reason) | canceled. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from portal.domain.staff import reviews as decisions

SENDING, SENT, PAID, FAILED, CANCELED = "sending", "sent", "paid", "failed", "canceled"
STATES = (SENDING, SENT, PAID, FAILED, CANCELED)
# The spec's payment status each state is mirrored to (Reward.status).
MIRROR = {SENDING: "PENDING", SENT: "PENDING", PAID: "EXECUTED", FAILED: "FAILED", CANCELED: "CANCELED"}

REVIEW, REFERRAL_BONUS = "review", "referral-bonus"
PRO_RATA = "pro-rata"  # a reporter's share of a test closed after problem reports (portal/domain/problem_reports.py)
BONUS = "bonus"  # given by staff through the API for a review or a test (issue 39; portal/domain/bonuses.py)
KIND_LABELS = {REVIEW: "Test reward", REFERRAL_BONUS: "Referral bonus", PRO_RATA: "Pro-rata reward", BONUS: "Bonus"}

# What a participant reads (the rewards tab's stage).
STAGE_SENDING, STAGE_SENT, STAGE_HELD = "Sending", "Sent", "Held"
HELD_DETAIL = (
    "Held until your tax details are on file: your payments this year near the reporting threshold. "
    "Reply to our e-mail or contact support to send them."
)
# The tax threshold (staff see who approaches it: at least this share of it, paid or on the way this year).
APPROACHING_SHARE = 0.8
SENT_DETAIL = "The rewards link is in your e-mail"
SENDING_DETAIL = "Your rewards link is being prepared"

RESEND_WAIT = timedelta(hours=48)
RESEND_WAITING = "You changed your payment e-mail recently: the reward can be sent again {when}."
NOT_FAILED = "Only a payment that failed can be sent again."
NOT_YOURS = "This reward does not exist."
ORDER_LEASE = timedelta(minutes=10)  # a 'sending' reward whose worker died is ordered again after this
RECONCILE_AFTER = timedelta(hours=1)  # a 'sent' reward the provider has not reported on is asked about after this
BACKOFF = (timedelta(minutes=1), timedelta(minutes=5), timedelta(minutes=15), timedelta(hours=1), timedelta(hours=6))


def status_of(state: str) -> str:
    return MIRROR[state]


def stage(
    reward_status: str | None, review_status: str | None, approved: bool, payout: str | None, held: bool = False
) -> str:
    """The stage a participant reads: the review's decision until the money moves, then the payout's state; 'Held'
    for an approved reward not yet ordered while the participant's payouts are held for tax details."""
    if (
        held
        and payout is None
        and reward_status == "PENDING"
        and (approved or review_status in decisions.PAID_DECISIONS)
    ):
        return STAGE_HELD
    if payout == SENDING and reward_status == "PENDING":
        return STAGE_SENDING
    if payout == SENT and reward_status == "PENDING":
        return STAGE_SENT
    return decisions.reward_stage(reward_status, review_status, approved)


# Staff's words for where a reward stands (the rewards page's column and its totals per state), in order.
IN_REVIEW, APPROVED = "In review", "Approved"
STAFF_STATES = (IN_REVIEW, APPROVED, STAGE_SENDING, STAGE_SENT, "Paid", "Failed", "Canceled")


def is_held(hold_at: object, details_at: object) -> bool:
    """Payouts are held while staff hold them and the tax details are not on file."""
    return hold_at is not None and details_at is None


def tax_standing(year_cents: int, threshold_cents: int, held: bool, details_on_file: bool) -> str:
    """What staff read of a participant near the threshold."""
    if details_on_file:
        return "Tax details on file"
    if held:
        return "Payouts held until tax details are on file"
    if year_cents >= threshold_cents:
        return "Over the threshold"
    return f"{round(100 * year_cents / threshold_cents)}% of the threshold" if threshold_cents else ""


def staff_state(status: str | None, approved: bool, payout: str | None) -> str:
    if status == "EXECUTED":
        return "Paid"
    if status == "FAILED":
        return "Failed"
    if status == "CANCELED":
        return "Canceled"
    if payout == SENT:
        return STAGE_SENT
    if payout == SENDING:
        return STAGE_SENDING
    return APPROVED if approved else IN_REVIEW


def expected_by(approved_at: datetime | None, *, crowd_work: bool = False) -> date | None:
    """The last day payment is expected (5 business days from approval; 7 to 10 for crowd-work respondents)."""
    if approved_at is None:
        return None
    return decisions.expected_payment(approved_at.date(), crowd_work=crowd_work)[1]


def resend_allowed_at(changed_at: datetime | None) -> datetime | None:
    """When a payout may be sent again after the payment e-mail changed (None: at once)."""
    return changed_at + RESEND_WAIT if changed_at is not None else None


def retry_at(attempts: int, now: datetime) -> datetime:
    """When an order that failed for a passing reason (network, the provider's outage) is tried again."""
    return now + BACKOFF[min(max(attempts, 1), len(BACKOFF)) - 1]


@dataclass(frozen=True)
class Totals:
    paid: int = 0  # cents
    on_the_way: int = 0  # approved, sending or sent
    in_review: int = 0
    this_year: int = 0  # paid in the calendar year


def totals(rows: Iterable[tuple[str | None, str | None, bool, int, datetime | None]], year: int) -> Totals:
    """A participant's totals from (payment status, review status, approved, cents, paid on) of each reward."""
    paid = on_the_way = in_review = this_year = 0
    for status, review_status, approved, cents, paid_on in rows:
        if status == "EXECUTED":
            paid += cents
            if paid_on is not None and paid_on.year == year:
                this_year += cents
        elif status == "PENDING" and review_status != decisions.REJECTED:
            if approved or review_status in decisions.PAID_DECISIONS:
                on_the_way += cents
            else:
                in_review += cents
    return Totals(paid, on_the_way, in_review, this_year)
