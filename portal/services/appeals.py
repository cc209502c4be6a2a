"""A participant's one appeal against a rejected review (issue 36, item 4; domain/staff/appeals.py).

The account id always comes from the server-side session (the caller resolves it)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import exists, insert, literal, select
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session
from sqlmodel.sql.sqltypes import UTCDateTime

from portal.domain import emails
from portal.domain.staff import appeals as rules
from portal.domain.staff import reviews as decisions
from portal.models import Account, Review, ReviewAppeal, Test
from portal.models._base import utcnow
from portal.services.admin import audit
from portal.services.admin.guard import Staff
from portal.services.admin.ids import one_id
from portal.services.errors import ServiceError
from portal.services.outbox import enqueue_email
from portal.settings import settings


def appeal(session: Session, *, account_id: int, review_id: Any, message: Any, now: datetime | None = None) -> int:
    """Appeal the account's rejected review `review_id` with `message`; the appeal's id.

    One write names the state it expects: the appeal row is inserted only from a review of this account that is
    still rejected, rejected within APPEAL_DAYS, and not yet appealed; the unique review_id makes a second appeal
    (another tab at the same instant) fail, answered with ALREADY_APPEALED. Audited (the participant as actor)."""
    now = now or utcnow()
    if problem := rules.message_problem(message):
        raise ServiceError(problem, field="message")
    text = str(message).strip()
    rid = one_id(review_id, rules.NOT_APPEALABLE)
    account = session.get(Account, account_id)
    if account is None:
        raise ServiceError(rules.NOT_APPEALABLE)
    cutoff = now - timedelta(days=rules.APPEAL_DAYS)  # rejected on or after this instant
    appealable = select(
        Review.id,
        literal(account_id),
        literal(text),
        literal(now, type_=UTCDateTime()),
        literal(rules.OPEN),
    ).where(
        Review.id == rid,
        Review.account_id == account_id,
        Review.status == decisions.REJECTED,
        Review.decided_at >= cutoff,
        ~exists().where(ReviewAppeal.review_id == Review.id),
    )
    statement = (
        insert(ReviewAppeal)
        .from_select(["review_id", "account_id", "message", "created_at", "status"], appealable)
        .returning(ReviewAppeal.id)
    )
    try:
        with session.begin_nested():
            appeal_id = session.execute(statement).scalar_one_or_none()
    except IntegrityError:
        raise ServiceError(rules.ALREADY_APPEALED) from None
    if appeal_id is None:
        raise ServiceError(_why_not(session, account_id, rid, now))
    audit.record(
        session,
        Staff(account_id=account.id, email=account.email or "", role="participant"),
        "appeal.create",
        "review",
        rid,
        {"status": decisions.REJECTED},
        {"appeal": appeal_id, "appeal_status": rules.OPEN, "message": text},
    )
    _tell_the_rejecter(session, rid)
    return int(appeal_id)


def _tell_the_rejecter(session: Session, review_id: int) -> None:
    """Both sides are told: the staff member who rejected the review learns of the appeal (another decides it)."""
    review = session.get(Review, review_id)
    rejecter = session.get(Account, review.decided_by_id) if review is not None and review.decided_by_id else None
    if review is None or rejecter is None or not rejecter.email or rejecter.removed_at is not None:
        return
    test = session.get(Test, review.test_id)
    mail = emails.appeal_received(
        brand=settings.brand_name,
        test_label=test.name if test else "a test",
        review_id=review.id,
        link=f"{settings.base_url}/admin/appeals",
    )
    enqueue_email(session, to=rejecter.email, subject=mail.subject, body=mail.body, kind="appeal-received")


def _why_not(session: Session, account_id: int, review_id: int, now: datetime) -> str:
    """The message for an appeal the write refused."""
    review = session.get(Review, review_id)
    if review is None or review.account_id != account_id or review.status != decisions.REJECTED:
        return rules.NOT_APPEALABLE
    appealed = session.execute(select(exists().where(ReviewAppeal.review_id == review_id))).scalar()
    if appealed:
        return rules.ALREADY_APPEALED
    return rules.TOO_LATE if not rules.within_window(review.decided_at, now) else rules.NOT_APPEALABLE
