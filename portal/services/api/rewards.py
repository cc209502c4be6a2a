"""Rewards for the REST API (issue 39): a keyset list and one reward; marking one paid, failed or canceled through
the staff service (admin/rewards.py `mark`); and bonuses: a reward of its own (kind 'bonus', portal/domain/bonuses.py)
given to a participant for a review or a test they took part in, payable at once and audited as 'reward.bonus'."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import exists, or_, select
from sqlmodel import Session

from portal.api.errors import Conflict, NotFound
from portal.domain import bonuses as rules
from portal.domain import payouts as payout_rules
from portal.domain.ids import MAX_VALUE
from portal.domain.reference_data import PAYMENT_STATUSES
from portal.domain.staff import roles
from portal.models import Account, Invite, Review, Reward, Test
from portal.models._base import utcnow
from portal.services.admin import audit
from portal.services.admin import rewards as staff_rewards
from portal.services.admin.guard import Caller, require_staff
from portal.services.api import keyset
from portal.services.errors import ServiceError

NO_REWARD = "This reward does not exist."
KINDS = (payout_rules.REVIEW, payout_rules.REFERRAL_BONUS, payout_rules.PRO_RATA, rules.BONUS)
BAD_STATUS = f"The status is one of: {', '.join(PAYMENT_STATUSES)}."
BAD_MARK = "Choose paid, failed or canceled."
BAD_KIND = f"The kind is one of: {', '.join(KINDS)}."
# The API's names of the staff marks.
MARKS = {"paid": staff_rewards.PAID, "failed": staff_rewards.FAILED, "canceled": staff_rewards.CANCELED}


def _item(reward: Reward, test_name: str | None, email: str | None) -> dict[str, Any]:
    return {
        "id": reward.id,
        "kind": reward.kind,
        "participant_id": reward.account_id,
        "participant": email,
        "review_id": reward.review_id,
        "test_id": reward.test_id,
        "test_name": test_name,
        "amount_cents": reward.amount_cents,
        "status": reward.status,
        "state": payout_rules.staff_state(reward.status, reward.approved_at is not None, reward.payout),
        "payable": reward.status == "PENDING" and reward.approved_at is not None,
        "created_at": reward.created_at,
        "approved_at": reward.approved_at,
        "paid_on": reward.paid_on,
        "payout": reward.payout,
        "provider": reward.provider,
        "provider_status": reward.provider_status,
        "failure_reason": reward.failure_reason,
    }


def _items(session: Session, ids: list[int]) -> list[dict[str, Any]]:
    if not ids:
        return []
    found = session.execute(
        select(Reward, Test.name, Account.email)
        .outerjoin(Test, Test.id == Reward.test_id)
        .outerjoin(Account, Account.id == Reward.account_id)
        .where(Reward.id.in_(ids))
        .execution_options(populate_existing=True)
    ).all()
    by_id = {reward.id: (reward, name, email) for reward, name, email in found}
    return [_item(*by_id[i]) for i in ids if i in by_id]


def list_rewards(
    session: Session,
    *,
    actor_id: Caller,
    status: str | None = None,
    kind: str | None = None,
    test_id: int | None = None,
    participant_id: int | None = None,
    after: int | None = None,
    limit: int = 50,
) -> keyset.Listed[dict[str, Any]]:
    """Rewards newest first (by id), filtered by payment status, kind, test and participant when asked."""
    require_staff(session, actor_id, roles.VIEW)
    if status is not None and status not in PAYMENT_STATUSES:
        raise ServiceError(BAD_STATUS, field="status")
    if kind is not None and kind not in KINDS:
        raise ServiceError(BAD_KIND, field="kind")
    statement = select(Reward.id)
    if status is not None:
        statement = statement.where(Reward.status == status)
    if kind is not None:
        statement = statement.where(Reward.kind == kind)
    if test_id is not None:
        statement = statement.where(Reward.test_id == test_id)
    if participant_id is not None:
        statement = statement.where(Reward.account_id == participant_id)
    after = None if after is None else min(after, MAX_VALUE)
    ids = [row[0] for row in keyset.page(session, statement, Reward.id, after=after, limit=limit)]
    chosen = keyset.listed(ids, ids, limit)
    return keyset.Listed(rows=_items(session, chosen.rows), next_after=chosen.next_after)


def read_reward(session: Session, *, actor_id: Caller, reward_id: int) -> dict[str, Any]:
    require_staff(session, actor_id, roles.VIEW)
    items = _items(session, [reward_id])
    if not items:
        raise NotFound(NO_REWARD)
    return items[0]


def mark(session: Session, *, actor_id: Caller, reward_id: int, mark: str) -> dict[str, Any]:
    """Mark one reward paid, failed or canceled (the staff rules: `staff_rewards.MARKABLE`); the reward as it is now.
    A reward the mark cannot change now is a Conflict with the staff service's message."""
    require_staff(session, actor_id, roles.PAY)
    if mark not in MARKS:
        raise ServiceError(BAD_MARK)
    if session.get(Reward, reward_id) is None:
        raise NotFound(NO_REWARD)
    try:
        staff_rewards.mark(session, actor_id=actor_id, reward_ids=[reward_id], status=MARKS[mark])
    except ServiceError as err:
        if err.message in (staff_rewards.NOT_PAYABLE, staff_rewards.CANNOT_CHANGE):
            raise Conflict(err.message) from None
        raise
    return read_reward(session, actor_id=actor_id, reward_id=reward_id)


def _participant(session: Session, participant_id: Any) -> Account:
    account = session.get(Account, participant_id) if isinstance(participant_id, int) else None
    if account is None or account.staff_role is not None:
        raise NotFound(rules.NO_PARTICIPANT, field="participant_id")
    if account.removed_at is not None or account.deleted_at is not None:
        raise Conflict(rules.NOT_ACTIVE, field="participant_id")
    return account


def _test_of(session: Session, account: Account, review_id: Any, test_id: Any) -> Test:
    """The test the bonus is for: the review's (the participant's own), or the test named (which they took part
    in: a review of it or an invite to it)."""
    if review_id is not None:
        review = session.get(Review, review_id) if isinstance(review_id, int) else None
        if review is None:
            raise NotFound(rules.NO_REVIEW, field="review_id")
        if review.account_id != account.id:
            raise ServiceError(rules.NOT_THEIR_REVIEW, field="review_id")
        if test_id is not None and test_id != review.test_id:
            raise ServiceError(rules.REVIEW_NOT_OF_TEST, field="test_id")
        test_id = review.test_id
    test = session.get(Test, test_id) if isinstance(test_id, int) else None
    if test is None:
        raise NotFound(rules.NO_TEST, field="test_id")
    if review_id is None:
        took_part = session.execute(
            select(
                or_(
                    exists().where(Review.account_id == account.id, Review.test_id == test.id),
                    exists().where(Invite.account_id == account.id, Invite.test_id == test.id),
                )
            )
        ).scalar_one()
        if not took_part:
            raise ServiceError(rules.NOT_IN_TEST, field="test_id")
    return test


def give_bonus(
    session: Session,
    *,
    actor_id: Caller,
    participant_id: Any,
    amount_cents: Any,
    review_id: Any = None,
    test_id: Any = None,
    note: Any = None,
    now: datetime | None = None,
) -> dict[str, Any]:
    """A bonus of `amount_cents` to the participant for a review of theirs or a test they took part in: a new reward
    (kind 'bonus'), payable at once, with one 'reward.bonus' audit row. Each call gives one bonus: the API's
    Idempotency-Key makes repeats of one request give it once."""
    staff = require_staff(session, actor_id, roles.PAY)
    clean_note, note_problem = rules.clean_note(note)
    problems = {
        field: message
        for field, message in (
            ("amount_cents", rules.amount_problem(amount_cents)),
            ("note", note_problem),
            ("review_id", rules.target_problem(review_id, test_id)),
        )
        if message
    }
    if problems:
        field, message = next(iter(problems.items()))
        raise ServiceError(message, field=field, errors=problems)
    account = _participant(session, participant_id)
    test = _test_of(session, account, review_id, test_id)
    now = now or utcnow()
    reward = Reward(
        account_id=account.id,
        amount_cents=amount_cents,
        status="PENDING",
        created_at=now,
        approved_at=now,
        kind=rules.BONUS,
        test_id=test.id,
        product_type=test.product_type,
        attempts=0,
    )
    session.add(reward)
    session.flush()
    audit.record(
        session,
        staff,
        "reward.bonus",
        "reward",
        reward.id,
        {},
        {
            "participant": account.id,
            "review": review_id,
            "test": test.id,
            "amount_cents": amount_cents,
            "note": clean_note,
        },
    )
    return _item(reward, test.name, account.email)
