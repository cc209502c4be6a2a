"""The payout ledger over the database (issue 37): each change of a reward's payout written once, audited, mirrored to
the spec's payment status. The calls to the provider happen between these functions, outside any transaction
(portal/services/payout_runner.py): a claim ('sending') is committed before the provider is asked, and what the
provider answered is written after.

Every change names the state it expects (`transitions.move`), so several workers, a webhook and the poll racing on
one reward change it once. The provider's order carries the reward's own id as its external id, so an order placed
again after a lost answer or a dead worker is the same order (portal/services/providers/payouts).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import and_, or_, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session

from portal.domain import payouts as rules
from portal.models import Account, ParticipantProfile, PayoutEvent, ReferralMember, ReferralProgram, Reward
from portal.models._base import utcnow
from portal.services import notification_events, transitions, webhooks
from portal.services.admin import audit

PENDING, EXECUTED = "PENDING", "EXECUTED"
# Approved, not ordered yet, and with someone to send the link to (crowd-work respondents are paid by their platform).
# Payouts held for tax details are not ordered (domain/payouts.is_held).
HELD_ACCOUNTS = select(Account.id).where(Account.tax_hold_at.is_not(None), Account.tax_details_at.is_(None))
TO_ORDER = and_(
    Reward.status == PENDING,
    Reward.approved_at.is_not(None),
    Reward.account_id.is_not(None),
    Reward.payout.is_(None),
    Reward.account_id.not_in(HELD_ACCOUNTS),
)


def external_id(reward_id: int) -> str:
    """The provider order's external id: the reward's own id (a repeated order is the same order)."""
    return f"reward-{reward_id}"


def reward_of_external_id(value: str) -> int | None:
    prefix = "reward-"
    rest = value[len(prefix) :] if value.startswith(prefix) else ""
    return int(rest) if rest.isdigit() else None


@dataclass(frozen=True)
class Claim:
    reward_id: int
    amount_cents: int
    email: str
    name: str
    external_id: str
    provider_reward_id: str | None  # set when resending


def _payment_email(account: Account) -> str:
    return account.payment_email or account.email or account.work_email or ""


def _name(session: Session, account: Account) -> str:
    profile = session.get(ParticipantProfile, account.id)
    name = f"{(profile.first_name or '') if profile else ''} {(profile.last_name or '') if profile else ''}".strip()
    return name or _payment_email(account).split("@")[0]


def due_to_order(session: Session, *, now: datetime, limit: int = 500) -> list[int]:
    """Rewards the job orders now: approved ones never ordered, and 'sending' ones whose order is due again (a passing
    failure's backoff, or a worker that died holding it)."""
    return list(
        session.execute(
            select(Reward.id)
            .where(
                or_(
                    TO_ORDER,
                    and_(
                        Reward.payout == rules.SENDING,
                        Reward.status == PENDING,
                        Reward.next_attempt_at <= now,
                    ),
                )
            )
            .order_by(Reward.id)
            .limit(limit)
        ).scalars()
    )


def due_to_reconcile(session: Session, *, now: datetime, limit: int = 500) -> list[tuple[int, str]]:
    """(reward id, provider reward id) of sent rewards the provider has not reported on for a while (a lost webhook)."""
    return [
        (rid, prid)
        for rid, prid in session.execute(
            select(Reward.id, Reward.provider_reward_id)
            .where(
                Reward.payout == rules.SENT,
                Reward.next_attempt_at <= now,
                Reward.provider_reward_id.is_not(None),
            )
            .order_by(Reward.next_attempt_at)
            .limit(limit)
        ).tuples()
        if prid
    ]


def claim(session: Session, *, reward_id: int, provider: str, now: datetime | None = None) -> Claim | None:
    """Take one reward for ordering: it moves to 'sending' (one write naming the states it may be in); None when
    another worker took it, or it is not to be ordered (not approved, paid, canceled...)."""
    now = now or utcnow()
    moved = transitions.move(
        session,
        Reward,
        Reward.id == reward_id,
        or_(
            TO_ORDER,
            and_(Reward.payout == rules.SENDING, Reward.status == PENDING, Reward.next_attempt_at <= now),
        ),
        values={
            "payout": rules.SENDING,
            "provider": provider,
            "next_attempt_at": now + rules.ORDER_LEASE,
            "attempts": Reward.attempts + 1,
            "ordered_at": now,
        },
    )
    if not moved:
        return None
    reward = session.get(Reward, reward_id, populate_existing=True)
    account = session.get(Account, reward.account_id) if reward and reward.account_id else None
    if reward is None or account is None:
        return None
    email = _payment_email(account)
    reward.payment_email = email
    session.add(reward)
    return Claim(reward.id, reward.amount_cents, email, _name(session, account), external_id(reward.id), None)


def ordered(
    session: Session,
    *,
    reward_id: int,
    order_id: str,
    provider_reward_id: str,
    state: str,
    provider_status: str,
    reason: str = "",
    now: datetime | None = None,
) -> bool:
    """What the provider answered to an order (or a resend): the reward moves from 'sending' to the state it reports
    (normally 'sent'). False: it is no longer 'sending' (another worker, a webhook or staff wrote first)."""
    now = now or utcnow()
    moved = transitions.move(
        session,
        Reward,
        Reward.id == reward_id,
        Reward.payout == rules.SENDING,
        values={
            "provider_order_id": order_id,
            "provider_reward_id": provider_reward_id,
            "provider_status": provider_status,
            "payout": rules.SENT,
            "sent_at": now,
            "next_attempt_at": now + rules.RECONCILE_AFTER,
            "failure_reason": None,
        },
    )
    if not moved:
        return False
    _audit(session, reward_id, "payout.sent", rules.SENDING, rules.SENT, {"order": order_id})
    notification_events.reward_moved(session, reward_id, sent=True)
    if state in (rules.PAID, rules.FAILED, rules.CANCELED):
        delivered(session, reward_id=reward_id, state=state, provider_status=provider_status, reason=reason, now=now)
    return True


def order_failed(
    session: Session, *, reward_id: int, reason: str, retryable: bool, now: datetime | None = None
) -> bool:
    """The order could not be placed: tried again later (backoff) when the reason passes, failed otherwise."""
    now = now or utcnow()
    reward = session.get(Reward, reward_id)
    if reward is None:
        return False
    if retryable:
        return bool(
            transitions.move(
                session,
                Reward,
                Reward.id == reward_id,
                Reward.payout == rules.SENDING,
                values={"next_attempt_at": rules.retry_at(reward.attempts, now), "failure_reason": reason[:300]},
            )
        )
    moved = transitions.move(
        session,
        Reward,
        Reward.id == reward_id,
        Reward.payout == rules.SENDING,
        values={
            "payout": rules.FAILED,
            "status": rules.status_of(rules.FAILED),
            "failure_reason": reason[:300],
            "next_attempt_at": None,
        },
    )
    if moved:
        _audit(session, reward_id, "payout.failed", rules.SENDING, rules.FAILED, {"reason": reason[:300]})
        notification_events.reward_moved(session, reward_id, sent=False, reason=reason[:300])
        webhooks.reward_moved(session, reward_id, paid=False, reason=reason[:300])
    return bool(moved)


def delivered(
    session: Session,
    *,
    reward_id: int,
    state: str,
    provider_status: str,
    reason: str = "",
    happened_at: datetime | None = None,
    now: datetime | None = None,
) -> bool:
    """What the provider reports of a sent reward (a webhook or the poll): paid, failed or canceled, written once; a
    report older than the newest one applied changes nothing. Paying credits the referral bonus (a reward of its
    own). 'sent' again only refreshes the provider's status and when to ask next."""
    now = now or utcnow()
    happened_at = happened_at or now
    newer = or_(Reward.last_event_at.is_(None), Reward.last_event_at <= happened_at)
    if state == rules.SENT:
        transitions.move(
            session,
            Reward,
            Reward.id == reward_id,
            Reward.payout == rules.SENT,
            newer,
            values={
                "provider_status": provider_status,
                "next_attempt_at": now + rules.RECONCILE_AFTER,
                "last_event_at": happened_at,
            },
        )
        return False
    if state not in (rules.PAID, rules.FAILED, rules.CANCELED):
        return False
    values: dict[str, Any] = {
        "payout": state,
        "status": rules.status_of(state),
        "provider_status": provider_status,
        "failure_reason": reason[:300] if state == rules.FAILED else None,
        "next_attempt_at": None,
        "last_event_at": happened_at,
    }
    if state == rules.PAID:
        values["paid_on"] = now
    moved = transitions.move(session, Reward, Reward.id == reward_id, Reward.payout == rules.SENT, newer, values=values)
    if not moved:
        return False
    _audit(
        session,
        reward_id,
        f"payout.{state}",
        rules.SENT,
        state,
        {"provider_status": provider_status, **({"reason": reason[:300]} if reason else {})},
    )
    if state == rules.PAID:
        referral_bonus(session, reward_id=reward_id, now=now)
        webhooks.reward_moved(session, reward_id, paid=True)
    if state == rules.FAILED:
        notification_events.reward_moved(session, reward_id, sent=False, reason=reason[:300])
        webhooks.reward_moved(session, reward_id, paid=False, reason=reason[:300])
    return True


def referral_bonus(session: Session, *, reward_id: int, now: datetime | None = None) -> Reward | None:
    """The referee's first paid reward earns the referrer a bonus: a reward of its own (kind 'referral-bonus',
    payable at once), written once per referee whatever runs at the same time (the member's conditional update, and
    the bonus's unique referral_member_id)."""
    from portal.services.referrals import on_reward_paid

    now = now or utcnow()
    member = on_reward_paid(session=session, reward_id=reward_id)
    if member is None:
        return None
    return bonus_reward(session, member=member, now=now)


def bonus_reward(session: Session, *, member: ReferralMember, now: datetime) -> Reward | None:
    """The bonus row of a credited member, inserted once (a second insert for the same member does nothing)."""
    program = session.get(ReferralProgram, member.program_id)
    cents = member.reward_cents or (program.bonus_cents if program else 2000)
    dialect = session.get_bind().dialect.name
    make = postgresql.insert if dialect == "postgresql" else sqlite.insert
    statement = (
        make(Reward)
        .values(
            account_id=member.referrer_account_id,
            amount_cents=cents,
            status=PENDING,
            created_at=now,
            approved_at=now,
            kind=rules.REFERRAL_BONUS,
            referral_member_id=member.id,
            attempts=0,
        )
        .on_conflict_do_nothing()
        .returning(Reward.id)
    )
    new_id = session.execute(statement).scalar_one_or_none()
    if new_id is None:
        return None
    audit.record(
        session,
        audit.SYSTEM,
        "reward.referral-bonus",
        "reward",
        new_id,
        {},
        {"referee": member.referee_account_id, "referrer": member.referrer_account_id, "amount_cents": cents},
    )
    return session.get(Reward, new_id)


def record_event(
    session: Session, *, provider: str, event_id: str, name: str, resource_id: str, happened_at: datetime
) -> bool:
    """A provider's webhook recorded once: False when the same event came before (a replay changes nothing)."""
    dialect = session.get_bind().dialect.name
    make = postgresql.insert if dialect == "postgresql" else sqlite.insert
    statement = (
        make(PayoutEvent)
        .values(
            provider=provider[:20],
            event_id=event_id[:80],
            name=name[:80],
            resource_id=resource_id[:80],
            happened_at=happened_at,
            received_at=utcnow(),
            outcome="",
        )
        .on_conflict_do_nothing()
        .returning(PayoutEvent.id)
    )
    return session.execute(statement).scalar_one_or_none() is not None


def reconcile_soon(session: Session, *, reward_id: int, now: datetime | None = None) -> None:
    """A sent reward whose webhook could not be applied is asked about at the job's next round."""
    transitions.move(
        session,
        Reward,
        Reward.id == reward_id,
        Reward.payout == rules.SENT,
        values={"next_attempt_at": now or utcnow()},
    )


def reward_of_provider(session: Session, *, provider_reward_id: str) -> int | None:
    return session.execute(
        select(Reward.id).where(Reward.provider_reward_id == provider_reward_id).limit(1)
    ).scalar_one_or_none()


def resend_claim(session: Session, *, reward_id: int, email: str, now: datetime | None = None) -> Claim | None:
    """A failed payout taken for sending again (to `email`): failed -> sending, once. One marked failed by hand
    (payout NULL) is ordered again; one the provider failed is resent."""
    now = now or utcnow()
    moved = transitions.move(
        session,
        Reward,
        Reward.id == reward_id,
        # Failed in the ledger, or marked failed by hand (before the ledger, or by staff): sent (again) either way.
        or_(Reward.payout == rules.FAILED, Reward.payout.is_(None)),
        Reward.status == "FAILED",
        Reward.approved_at.is_not(None),
        values={
            "payout": rules.SENDING,
            "status": PENDING,
            "payment_email": email,
            "next_attempt_at": now + rules.ORDER_LEASE,
            "attempts": Reward.attempts + 1,
        },
    )
    if not moved:
        return None
    reward = session.get(Reward, reward_id, populate_existing=True)
    if reward is None:
        return None
    _audit(session, reward_id, "payout.resend", rules.FAILED, rules.SENDING, {"email": email})
    return Claim(reward.id, reward.amount_cents, email, "", external_id(reward.id), reward.provider_reward_id)


def _audit(session: Session, reward_id: int, action: str, before: str, after: str, extra: dict[str, Any]) -> None:
    audit.record(session, audit.SYSTEM, action, "reward", reward_id, {"payout": before}, {"payout": after, **extra})
