"""The rewards table of a participant (completed tests and their payouts): one page in SQL, with its total.

The account id always comes from the server-side session (the caller resolves it).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Integer, bindparam, select
from sqlmodel import Session

from portal.domain import invites as invite_rules
from portal.domain import payouts as payout_rules
from portal.domain import table as rules
from portal.domain.reference_data import PAYMENT_STATUSES
from portal.domain.staff import appeals as appeal_rules
from portal.domain.staff import reviews as decisions
from portal.models import Account, Review, ReviewAppeal, Reward, Test
from portal.models._base import utcnow
from portal.services.providers.payouts import payout_provider
from portal.services.tables import (
    Dates,
    Options,
    TablePage,
    TableQuery,
    TableSpec,
    read_page,
    searches_an_id,
    tests_matching,
)

# The reward row carries its test id and type (migration 0005): the page's ids are read from the reward
# indexes alone (created_at or product_type order; search through the matching tests), and only the
# page's rows are joined to their tests (for the link).
TABLE = TableSpec(
    key=Reward.id,
    sortable={"createdOn": Reward.created_at, "testType": Reward.product_type},
    filters=(Options("paymentStatus", Reward.status, PAYMENT_STATUSES), Dates("createdOn", Reward.created_at)),
    search=lambda by_id: Reward.test_id.in_(tests_matching(by_id)),
    search_form=searches_an_id,
    scope=(Reward.account_id == bindparam("account_id", type_=Integer),),
    rows=select(
        Reward.id,
        Reward.amount_cents,
        Reward.status,
        Reward.paid_on,
        Reward.created_at,
        Reward.test_id,
        Reward.product_type,
        Test.url,
        Reward.approved_at,
        Review.status,
        Review.reject_reason,
        Review.id,
        Review.decided_at,
        Review.reject_flags,
        Review.reject_evidence,
        ReviewAppeal.status,
        Reward.kind,
        Reward.payout,
        Reward.failure_reason,
        Reward.sent_at,
        Reward.payment_email,
    )
    # A referral bonus has no review and no test (issue 37).
    .outerjoin(Test, Test.id == Reward.test_id)
    .outerjoin(Review, Review.id == Reward.review_id)
    .outerjoin(ReviewAppeal, ReviewAppeal.review_id == Review.id),
)
clean_query = TABLE.clean


def list_rewards(session: Session, *, account_id: int, query: TableQuery) -> TablePage:
    """One page of the account's rewards, sorted and filtered in SQL, with totalAmount."""
    page, (total,) = read_page(session=session, table=TABLE, query=query, account_id=account_id)
    now = utcnow()
    account = session.get(Account, account_id)
    held = account is not None and payout_rules.is_held(account.tax_hold_at, account.tax_details_at)
    # 'Send again' only where a provider pays (with the manual provider staff pay by hand).
    resendable = payout_provider().name != "manual"
    return TablePage(rows=[_row(*r, now=now, held=held, resendable=resendable) for r in page], total=int(total))


def _row(
    reward_id: int,
    amount_cents: int,
    status: str | None,
    paid_on: Any,
    created_at: Any,
    test_id: int,
    product_type: str,
    url: str | None,
    approved_at: Any,
    review_status: str | None,
    reject_reason: str | None,
    review_id: int,
    decided_at: Any,
    reject_flags: list[str] | None,
    reject_evidence: str | None,
    appeal_status: str | None,
    kind: str | None,
    payout: str | None,
    failure_reason: str | None,
    sent_at: Any,
    payment_email: str | None,
    *,
    now: datetime,
    held: bool = False,
    resendable: bool = False,
) -> dict[str, str]:
    """One row for the browser; the arguments are the columns of TABLE.rows, in order. A rejected review also
    carries its reason and evidence in words, and its appeal: 'Appeal' while one can be made (appeals.py)."""
    stage = payout_rules.stage(status, review_status, approved_at is not None, payout, held)
    bonus = kind == payout_rules.REFERRAL_BONUS
    rejected = review_status == decisions.REJECTED
    appealable = appeal_rules.can_appeal(review_status, decided_at, appeal_status is not None, now)
    return {
        "review_id": str(review_id),
        "reason": decisions.REJECTION_REASONS.get(reject_reason or "", "") if rejected else "",
        "evidence": decisions.evidence_text(reject_flags, reject_evidence) if rejected else "",
        "can_appeal": "yes" if appealable else "",
        "appeal_until": rules.format_date(appeal_rules.appeal_closes(decided_at)) if appealable else "",
        "appeal": appeal_rules.decision_words(appeal_status or ""),
        "stage": stage,
        "stage_detail": _stage_detail(stage, paid_on, approved_at, reject_reason, sent_at, failure_reason),
        "failed": "yes" if status == "FAILED" and resendable and approved_at is not None else "",
        "sent_to": payment_email or "" if payout in (payout_rules.SENT, payout_rules.FAILED) else "",
        "id": str(reward_id),
        "test_id": str(test_id) if test_id is not None else "",
        "test_url": url or "",
        "test_type": payout_rules.KIND_LABELS[payout_rules.REFERRAL_BONUS]
        if bonus
        else invite_rules.product_type_label(product_type)
        + (
            " (pro rata: closed after reports)"
            if kind == payout_rules.PRO_RATA
            else " (bonus)"
            if kind == payout_rules.BONUS
            else ""
        ),
        "status_label": invite_rules.REWARD_STATUS,
        "date": rules.format_date(created_at),
        "payout": rules.format_money(amount_cents),
        "payment_status": status or "",
        "payment_label": rules.payment_status_label(status),
        "paid_on": rules.format_date(paid_on),
    }


def _stage_detail(
    stage: str, paid_on: Any, approved_at: Any, reject_reason: str | None, sent_at: Any, failure_reason: str | None
) -> str:
    """What the participant reads under the stage: the payment date, when payment is expected, the reason."""
    if stage == decisions.STAGE_PAID:
        return f"Paid on {rules.format_date(paid_on)}" if paid_on else ""
    if stage in (decisions.STAGE_APPROVED, payout_rules.STAGE_SENDING) and approved_at is not None:
        return f"Expected by {rules.format_date(payout_rules.expected_by(approved_at))}"
    if stage == payout_rules.STAGE_HELD:
        return payout_rules.HELD_DETAIL
    if stage == payout_rules.STAGE_SENT:
        return (
            f"{payout_rules.SENT_DETAIL} (sent {rules.format_date(sent_at)})" if sent_at else payout_rules.SENT_DETAIL
        )
    if stage == decisions.STAGE_FAILED:
        return failure_reason or "The payment failed."
    if stage == decisions.STAGE_REJECTED:
        return decisions.REJECTION_REASONS.get(reject_reason or "", "")
    if stage == decisions.STAGE_SUBMITTED:
        return "Waiting for review"
    return ""
