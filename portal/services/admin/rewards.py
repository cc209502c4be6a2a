"""Staff: rewards by participant and test with totals; mark paid, failed or canceled; the payout CSV."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import and_, func, join, or_, select
from sqlmodel import Session

from portal.domain import payouts as payout_rules
from portal.domain import table as rules
from portal.domain.reference_data import PAYMENT_STATUSES
from portal.domain.staff import reviews as decisions
from portal.domain.staff import roles
from portal.domain.staff.csv_cells import to_csv
from portal.models import Account, Review, Reward, Test
from portal.models._base import utcnow
from portal.services import payouts, transitions, webhooks
from portal.services.admin import audit
from portal.services.admin.guard import Caller, require_staff
from portal.services.admin.ids import parse_ids
from portal.services.errors import ServiceError
from portal.services.tables import Dates, Ids, Options, Own, TablePage, TableQuery, TableSpec, contains

PAID, FAILED, CANCELED = "EXECUTED", "FAILED", "CANCELED"
MARKS = {PAID: "reward.pay", FAILED: "reward.fail", CANCELED: "reward.cancel"}
MAX_BULK = 1000
NOT_PAYABLE = "Only approved, unpaid rewards can be paid."
CANNOT_CHANGE = "This reward cannot be changed now."
# Approved, unpaid, and not on its way through the payout provider (a reward being sent or sent is never paid by
# hand too, nor listed in the payout CSV: issue 37).
NOT_ON_ITS_WAY = or_(Reward.payout.is_(None), Reward.payout.not_in(("sending", "sent")))
PAYABLE = and_(Reward.status == "PENDING", Reward.approved_at.is_not(None), NOT_ON_ITS_WAY)
TABLE = TableSpec(
    key=Reward.id,
    sortable={"createdOn": Reward.created_at, "amount": Reward.amount_cents},
    filters=(
        Own("payable", ("yes",), lambda _: PAYABLE),
        Options("paymentStatus", Reward.status, PAYMENT_STATUSES),
        Ids("test", Reward.test_id),
        Dates("createdOn", Reward.created_at),
    ),
    search=lambda _: or_(contains(Account.email), contains(Test.name)),
    # Only a search reads the test and the participant (a reward's test is its review's, never missing).
    # (A referral bonus has no test: outer joins.)
    search_source=join(Reward, Test, Test.id == Reward.test_id, isouter=True).outerjoin(
        Account, Account.id == Reward.account_id
    ),
    page_sizes=(100, 200),
)
clean_query = TABLE.clean


def list_rewards(session: Session, *, actor_id: Caller, query: TableQuery) -> TablePage:
    staff = require_staff(session, actor_id, roles.VIEW)
    values, chosen = TABLE.values(query), TABLE.select(query)
    total, cents = session.execute(chosen.total(func.coalesce(func.sum(Reward.amount_cents), 0)), values).one()
    ids = [r[0] for r in session.execute(chosen.page(), values)]
    rows = []
    if ids:
        found = session.execute(
            select(Reward, Test.name, Account.email)
            .outerjoin(Test, Test.id == Reward.test_id)
            .outerjoin(Account, Account.id == Reward.account_id)
            .where(Reward.id.in_(ids))
        ).all()
        by_id = {reward.id: (reward, name, email) for reward, name, email in found}
        rows = [_row(*by_id[i], may_pay=staff.may(roles.PAY)) for i in ids]
    page = TablePage(rows=rows, total=int(total))
    page.total_open = int(cents)  # the amount of every matching reward (shown as the total)
    return page


def totals_by_state(session: Session, *, actor_id: Caller, query: TableQuery) -> list[dict[str, str]]:
    """The rewards the table's search and filters choose, per state (in review, approved, sending, sent, paid, failed,
    canceled): how many and their amount, each on its own (never paid and unpaid added together)."""
    require_staff(session, actor_id, roles.VIEW)
    values, chosen = TABLE.values(query), TABLE.select(query)
    ids = chosen.matching()
    found: dict[str, list[int]] = {state: [0, 0] for state in payout_rules.STAFF_STATES}
    for status, approved, payout, count, cents in session.execute(
        select(
            Reward.status,
            Reward.approved_at.is_not(None),
            Reward.payout,
            func.count(Reward.id),
            func.coalesce(func.sum(Reward.amount_cents), 0),
        )
        .where(Reward.id.in_(ids))
        .group_by(Reward.status, Reward.approved_at.is_not(None), Reward.payout),
        values,
    ):
        state = payout_rules.staff_state(status, bool(approved), payout)
        found[state][0] += int(count)
        found[state][1] += int(cents)
    return [
        {"state": state, "count": str(count), "amount": rules.format_money(cents) or "$0"}
        for state, (count, cents) in found.items()
    ]


def _row(reward: Reward, test_name: str | None, email: str | None, *, may_pay: bool) -> dict[str, str]:
    payable = reward.status == "PENDING" and reward.approved_at is not None
    state = payout_rules.staff_state(reward.status, reward.approved_at is not None, reward.payout)
    expected = payout_rules.expected_by(reward.approved_at, crowd_work=reward.account_id is None)
    return {
        "id": str(reward.id),
        "participant": email or "",
        "account_id": str(reward.account_id or ""),
        "test": test_name or payout_rules.KIND_LABELS.get(reward.kind, reward.kind),
        "state": state,
        "expected": rules.format_date(expected)
        if expected and state in (payout_rules.APPROVED, payout_rules.STAGE_SENDING, payout_rules.STAGE_SENT)
        else "",
        "provider": " · ".join(p for p in (reward.provider or "", reward.provider_status or "") if p),
        "reason": reward.failure_reason or "",
        "pay_now": "yes" if may_pay and payable and reward.payout is None and reward.account_id is not None else "",
        "amount": rules.format_money(reward.amount_cents),
        "created": rules.format_date(reward.created_at),
        "status": reward.status,
        "status_label": "Payable" if payable else rules.payment_status_label(reward.status),
        "approved": rules.format_date(reward.approved_at),
        "paid_on": rules.format_date(reward.paid_on),
        "payable": "yes" if payable and may_pay else "",  # the row's 'Mark paid' shows where set
    }


# Which rewards each mark may change (one table: the mark itself and its confirmation's preview read it).
MARKABLE = {
    PAID: or_(
        PAYABLE, and_(Reward.status == FAILED, Reward.approved_at.is_not(None))
    ),  # a failed payment may be retried
    FAILED: PAYABLE,  # only a payment that was due can fail (an unapproved one marked failed could never be paid)
    CANCELED: and_(Reward.status.in_(("PENDING", FAILED)), NOT_ON_ITS_WAY),
}


def mark(session: Session, *, actor_id: Caller, reward_ids: Any, status: Any, now: datetime | None = None) -> int:
    """Mark rewards paid (EXECUTED, with today's date; payable ones only), failed or canceled; returns how many.
    Paying credits the referral bonus after a referee's first paid reward, as the CLI does."""
    staff = require_staff(session, actor_id, roles.PAY)
    if not isinstance(status, str) or status not in MARKS:
        raise ServiceError("Choose paid, failed or canceled.")
    ids = parse_ids(reward_ids, MAX_BULK, noun="reward")
    now = now or utcnow()
    allowed = MARKABLE[status]
    # Each reward moves from the state it was read in, only if it is still in it (transitions.move_from):
    # fifty tabs marking one reward paid at once pay it once; the others answer that it cannot be paid.
    read = {
        reward_id: (was, paid_on)
        for reward_id, was, paid_on in session.execute(
            select(Reward.id, Reward.status, Reward.paid_on).where(Reward.id.in_(ids), allowed)
        )
    }
    moved = transitions.move_from(
        session,
        Reward,
        {i: was for i, (was, _) in read.items()},
        allowed,
        values={"status": status, "paid_on": now if status == PAID else None},
    )
    if not moved and len(ids) == 1:
        raise ServiceError(NOT_PAYABLE if status == PAID else CANNOT_CHANGE)
    for reward_id, was in sorted(moved.items()):
        after: dict[str, Any] = {"status": status, "paid_on": now if status == PAID else None}
        if status == PAID and (bonus := payouts.referral_bonus(session, reward_id=reward_id, now=now)) is not None:
            after["referral_bonus_to"] = bonus.account_id
            after["referral_bonus_reward"] = bonus.id
        audit.record(
            session, staff, MARKS[status], "reward", reward_id, {"status": was, "paid_on": read[reward_id][1]}, after
        )
        if status in (PAID, FAILED):  # reward.paid / reward.failed for each reward moved here
            webhooks.reward_moved(session, reward_id, paid=status == PAID)
    return len(moved)


def mark_paid_by_system(session: Session, *, reward_id: int) -> tuple[Reward, Any]:
    """The CLI's mark-reward-paid: the same rules, recorded as the system. A reward paid already (say,
    before referrals, or by staff a moment ago) is not paid again; a bonus not credited yet is credited."""
    reward = session.get(Reward, reward_id, populate_existing=True)
    if reward is None:
        raise ServiceError(f"Reward {reward_id} not found.")
    if reward.status == PAID:
        return reward, payouts.referral_bonus(session, reward_id=reward.id)
    if reward.status != "PENDING" and reward.status != FAILED:
        raise ServiceError(f"Reward {reward_id} is {reward.status}: only pending or failed rewards can be paid.")
    before = {"status": reward.status, "paid_on": reward.paid_on}
    now = utcnow()
    # The review first, as staff decisions lock them (review, then reward): paying accepts an undecided
    # review (as migration 0007 did).
    transitions.move(
        session,
        Review,
        Review.id == reward.review_id,
        Review.status == decisions.SUBMITTED,
        values={"status": decisions.APPROVED, "decided_at": now},
    )
    if not transitions.move(
        session,
        Reward,
        Reward.id == reward.id,
        Reward.status == before["status"],
        values={"status": PAID, "paid_on": now, "approved_at": func.coalesce(Reward.approved_at, now)},
    ):
        reward = session.get(Reward, reward_id, populate_existing=True)  # changed meanwhile: as it is now
        if reward is not None and reward.status == PAID:
            return reward, payouts.referral_bonus(session, reward_id=reward.id)
        raise ServiceError(f"Reward {reward_id} changed meanwhile: nothing was done; run the command again.")
    session.refresh(reward)
    member = payouts.referral_bonus(session, reward_id=reward.id)
    webhooks.reward_moved(session, reward.id, paid=True)
    audit.record(
        session, audit.SYSTEM, "reward.pay", "reward", reward.id, before, {"status": PAID, "paid_on": reward.paid_on}
    )
    return reward, member


def mark_reward_paid(session: Session, *, reward_id: int) -> tuple[Reward, Any]:
    """The CLI's mark-reward-paid: `mark_paid_by_system` (the same rules, recorded as the system)."""
    return mark_paid_by_system(session=session, reward_id=reward_id)


def payout_csv(session: Session, *, actor_id: Caller) -> tuple[str, str]:
    """Payable rewards per participant: participant, payment e-mail, amount, reward ids."""
    staff = require_staff(session, actor_id, roles.PAY)
    found = session.execute(
        select(Account.id, Account.email, Account.work_email, func.sum(Reward.amount_cents), func.count(Reward.id))
        .join(Reward, Reward.account_id == Account.id)
        .where(PAYABLE)
        .group_by(Account.id, Account.email, Account.work_email)
        .order_by(Account.id)
    ).all()
    ids = session.execute(select(Reward.account_id, Reward.id).where(PAYABLE).order_by(Reward.id)).all()
    by_account: dict[int, list[str]] = {}
    for account_id, reward_id in ids:
        by_account.setdefault(account_id, []).append(str(reward_id))
    rows = [
        [account_id, email or work_email or "", f"{cents / 100:.2f}", " ".join(by_account.get(account_id, []))]
        for account_id, email, work_email, cents, _count in found
    ]
    audit.record(session, staff, "rewards.export", "reward", "", {}, {"participants": len(rows)})
    return "payouts.csv", to_csv(["participant_id", "payment_email", "amount_usd", "reward_ids"], rows)


# Which rewards each mark changes (as `mark` decides them): paid for approved unpaid rewards or a failed
# payment being retried, failed only for a payment that was due, canceled for any unpaid one.
def mark_preview(session: Session, *, actor_id: Caller, reward_ids: Any, status: Any) -> tuple[int, int]:
    """What marking these rewards would change, for the confirmation: how many, and the sum of their amounts in cents
    (for 'paid': what would be paid)."""
    require_staff(session, actor_id, roles.PAY)
    if not isinstance(status, str) or status not in MARKS:
        raise ServiceError("Choose paid, failed or canceled.")
    ids = parse_ids(reward_ids, MAX_BULK, noun="reward")
    count, cents = session.execute(
        select(func.count(Reward.id), func.coalesce(func.sum(Reward.amount_cents), 0)).where(
            Reward.id.in_(ids), MARKABLE[status]
        )
    ).one()
    return int(count), int(cents)
