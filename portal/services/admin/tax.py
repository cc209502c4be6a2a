"""Staff: participants near the yearly tax reporting threshold (issue 37, item 7), and holding their payouts until
their tax details are on file.

A participant's year total is what was paid to them this calendar year plus what is on its way (approved, sending
or sent): staff see who reaches APPROACHING_SHARE of the threshold (settings.tax_threshold_cents) before it is
crossed. Holding stops the payout job from ordering their rewards (services/payouts.TO_ORDER); the participant reads
why on the rewards tab. Recording the tax details releases the hold. Each change is one write naming the state it
expects, audited."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import and_, case, extract, func, or_, select
from sqlmodel import Session

from portal.domain import payouts as rules
from portal.domain import table as table_rules
from portal.domain.staff import roles
from portal.models import Account, Reward
from portal.models._base import utcnow
from portal.services import transitions
from portal.services.admin import audit
from portal.services.admin.guard import Caller, require_staff
from portal.services.admin.ids import one_id
from portal.services.errors import ServiceError
from portal.settings import settings

NO_PARTICIPANT = "This participant does not exist."
HELD_ALREADY = "Their payouts are held already."
NOT_HELD = "Their payouts are not held."
MAX_ROWS = 200


def threshold_cents() -> int:
    return max(1, settings.tax_threshold_cents)


def near_threshold(session: Session, *, actor_id: Caller, now: datetime | None = None) -> list[dict[str, str]]:
    """Participants whose year total (paid this year, plus on its way) reaches APPROACHING_SHARE of the threshold, or
    whose payouts are held, the largest first (at most MAX_ROWS)."""
    require_staff(session, actor_id, roles.PAY)
    now = now or utcnow()
    limit = threshold_cents()
    paid_this_year = and_(Reward.status == "EXECUTED", extract("year", Reward.paid_on) == now.year)
    on_the_way = and_(Reward.status == "PENDING", Reward.approved_at.is_not(None))
    year = func.coalesce(
        func.sum(case((or_(paid_this_year, on_the_way), Reward.amount_cents), else_=0)),
        0,
    )
    paid = func.coalesce(func.sum(case((paid_this_year, Reward.amount_cents), else_=0)), 0)
    found = session.execute(
        select(Account.id, Account.email, Account.tax_hold_at, Account.tax_details_at, year, paid)
        .join(Reward, Reward.account_id == Account.id)
        .group_by(Account.id, Account.email, Account.tax_hold_at, Account.tax_details_at)
        .having(or_(year >= int(limit * rules.APPROACHING_SHARE), Account.tax_hold_at.is_not(None)))
        .order_by(year.desc(), Account.id)
        .limit(MAX_ROWS)
    ).all()
    return [
        {
            "id": str(account_id),
            "participant": email or "",
            "year_total": table_rules.format_money(int(total)) or "$0",
            "paid": table_rules.format_money(int(paid_cents)) or "$0",
            "standing": rules.tax_standing(int(total), limit, rules.is_held(hold, details), details is not None),
            "held": "yes" if rules.is_held(hold, details) else "",
            "may_hold": "" if hold is not None or details is not None else "yes",
        }
        for account_id, email, hold, details, total, paid_cents in found
    ]


def _account(session: Session, account_id: Any) -> int:
    aid = one_id(account_id, NO_PARTICIPANT)
    if session.get(Account, aid) is None:
        raise ServiceError(NO_PARTICIPANT)
    return aid


def hold(session: Session, *, actor_id: Caller, account_id: Any, now: datetime | None = None) -> None:
    """Hold the participant's payouts until their tax details are on file."""
    staff = require_staff(session, actor_id, roles.PAY)
    aid = _account(session, account_id)
    now = now or utcnow()
    if not transitions.move(
        session, Account, Account.id == aid, Account.tax_hold_at.is_(None), values={"tax_hold_at": now}
    ):
        raise ServiceError(HELD_ALREADY)
    audit.record(session, staff, "tax.hold", "account", aid, {"tax_hold": None}, {"tax_hold": now.isoformat()})


def details_on_file(session: Session, *, actor_id: Caller, account_id: Any, now: datetime | None = None) -> None:
    """The participant's tax details are on file: their held payouts are released (the job orders them)."""
    staff = require_staff(session, actor_id, roles.PAY)
    aid = _account(session, account_id)
    now = now or utcnow()
    if not transitions.move(
        session,
        Account,
        Account.id == aid,
        Account.tax_hold_at.is_not(None),
        Account.tax_details_at.is_(None),
        values={"tax_details_at": now},
    ):
        raise ServiceError(NOT_HELD)
    audit.record(
        session, staff, "tax.details-on-file", "account", aid, {"tax_details": None}, {"tax_details": now.isoformat()}
    )
