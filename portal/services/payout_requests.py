"""What a participant does about their payouts (issue 37): read their totals, correct the e-mail rewards links go
to, and send a failed payout again (not within 48 hours of changing that e-mail: a stolen session cannot redirect
money at once). The account id always comes from the server-side session."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlmodel import Session

from portal.domain import payouts as rules
from portal.domain import table as table_rules
from portal.domain.accounts import normalize_email
from portal.domain.ids import whole_number
from portal.domain.profile_rules import email_error
from portal.models import Account, Review, Reward
from portal.models._base import utcnow
from portal.services import payouts
from portal.services.admin import audit
from portal.services.admin.guard import Staff
from portal.services.errors import ServiceError

EMAIL_REQUIRED = "Enter the e-mail address for your rewards links."
UNCHANGED = "This is already your payment e-mail."


@dataclass(frozen=True)
class PaymentEmail:
    email: str
    resend_from: str  # '' when a failed payout can be sent again now, else when (formatted)


def _account(session: Session, account_id: int) -> Account:
    account = session.get(Account, account_id)
    if account is None or account.removed_at is not None:
        raise ServiceError(rules.NOT_YOURS)
    return account


def payment_email(session: Session, *, account_id: int, now: datetime | None = None) -> PaymentEmail:
    account = _account(session, account_id)
    now = now or utcnow()
    allowed = rules.resend_allowed_at(_aware(account.payment_email_changed_at))
    return PaymentEmail(
        account.payment_email or account.email or account.work_email or "",
        table_rules.format_date(allowed) if allowed is not None and allowed > now else "",
    )


def _aware(value: datetime | None) -> datetime | None:
    from datetime import UTC

    return value.replace(tzinfo=UTC) if value is not None and value.tzinfo is None else value


def set_payment_email(session: Session, *, account_id: int, email: Any, now: datetime | None = None) -> str:
    """Change where rewards links go; the new address (normalised). Audited with the participant as the actor."""
    account = _account(session, account_id)
    text = normalize_email(email if isinstance(email, str) else "")
    if problem := email_error(text, required_message=EMAIL_REQUIRED):
        raise ServiceError(problem, field="payment_email")
    before = account.payment_email or account.email or account.work_email or ""
    if text == before:
        raise ServiceError(UNCHANGED, field="payment_email")
    now = now or utcnow()
    account.payment_email, account.payment_email_changed_at = text, now
    session.add(account)
    audit.record(
        session,
        Staff(account_id=account.id, email=account.email or "", role="participant"),
        "account.payment-email",
        "account",
        account.id,
        {"payment_email": before},
        {"payment_email": text},
    )
    return text


def resend_claim(session: Session, *, account_id: int, reward_id: Any, now: datetime | None = None) -> payouts.Claim:
    """A participant's failed payout taken to be sent again to their payment e-mail (once; refused with the reason
    while the 48 hours after a change of that e-mail run, or when it is not theirs or did not fail)."""
    now = now or utcnow()
    account = _account(session, account_id)
    # An id in an id's range only: a huge number overflows the database's integer ('²' is a digit to isdigit).
    rid = whole_number(reward_id)
    reward = session.get(Reward, rid) if rid is not None else None
    if reward is None or reward.account_id != account.id:
        raise ServiceError(rules.NOT_YOURS)
    if reward.status != "FAILED" or reward.payout not in (rules.FAILED, None) or reward.approved_at is None:
        raise ServiceError(rules.NOT_FAILED)
    allowed = rules.resend_allowed_at(_aware(account.payment_email_changed_at))
    if allowed is not None and allowed > now:
        raise ServiceError(rules.RESEND_WAITING.format(when=f"on {table_rules.format_date(allowed)}"))
    claim = payouts.resend_claim(
        session,
        reward_id=reward.id,
        email=account.payment_email or account.email or account.work_email or "",
        now=now,
    )
    if claim is None:
        raise ServiceError(rules.NOT_FAILED)
    return claim


@dataclass(frozen=True)
class TotalsView:
    paid: str
    on_the_way: str
    in_review: str
    this_year: str
    year: int


def totals(session: Session, *, account_id: int, now: datetime | None = None) -> TotalsView:
    """The rewards tab's totals: paid, on the way (approved, sending or sent), in review, and paid this year."""
    now = now or utcnow()
    rows = session.execute(
        select(Reward.status, Review.status, Reward.approved_at.is_not(None), Reward.amount_cents, Reward.paid_on)
        .outerjoin(Review, Review.id == Reward.review_id)
        .where(Reward.account_id == account_id)
    ).tuples()
    found = rules.totals(rows, now.year)
    money = table_rules.format_money
    return TotalsView(
        money(found.paid) or "$0",
        money(found.on_the_way) or "$0",
        money(found.in_review) or "$0",
        money(found.this_year) or "$0",
        now.year,
    )
