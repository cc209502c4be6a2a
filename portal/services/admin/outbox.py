"""Staff: the e-mail outbox (address, subject, kind, status, attempts, last error), and 'Retry now'.

Bodies and links are never read here: they hold sign-in, verification and reset links that would let
whoever reads them act as the addressee. Staff see who an e-mail is for, what it is about and how its
delivery goes; nothing that opens someone's account.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import and_, or_, select
from sqlmodel import Session

from portal.domain import notifications as notification_rules
from portal.domain.ids import whole_number
from portal.domain.staff import outbox_status as outbox_rules
from portal.domain.staff import roles
from portal.models import OutboxEmail
from portal.models._base import utcnow
from portal.services.admin import audit
from portal.services.admin.guard import Caller, require_staff
from portal.services.errors import ServiceError
from portal.services.tables import Dates, Own, TablePage, TableQuery, TableSpec, contains
from portal.settings import settings

KINDS = {
    "verify-email": "E-mail verification",
    "verify-work-email": "Work e-mail verification",
    "reset-password": "Password reset",
    "email-changed": "E-mail changed",
    "password-changed": "Password changed",
    "invite": "Test invite",
    "appeal-decided": "Appeal decided",
    "problem-report": "Problem reported",
}
# Notifications (issue 38): each kind of the registry not named above, by its key.
KINDS.update({key: f"Notification: {key.replace('-', ' ')}" for key in notification_rules.KEYS if key not in KINDS})
ERROR_SHOWN = 300
NOT_FOUND = "This e-mail is not in the outbox."
SENT_ALREADY = "This e-mail was sent already."


def _status_condition(value: str, max_attempts: int) -> Any:
    sent, low, below = outbox_rules.attempts_bounds(value, max_attempts)
    if sent:
        return OutboxEmail.sent_at.is_not(None)
    parts = [OutboxEmail.sent_at.is_(None), OutboxEmail.attempts >= low]
    if below is not None:
        parts.append(OutboxEmail.attempts < below)
    return and_(*parts)


def _of_statuses(chosen: tuple[str, ...]) -> Any:
    return or_(*(_status_condition(v, settings.mail_max_attempts) for v in chosen))


TABLE = TableSpec(
    key=OutboxEmail.id,
    sortable={"createdOn": OutboxEmail.created_at},
    filters=(Own("status", outbox_rules.STATUSES, _of_statuses), Dates("createdOn", OutboxEmail.created_at)),
    search=lambda _: contains(OutboxEmail.to_address),
)
clean_query = TABLE.clean


def list_outbox(session: Session, *, actor_id: Caller, query: TableQuery, now: datetime | None = None) -> TablePage:
    require_staff(session, actor_id, roles.OUTBOX)
    now = now or utcnow()
    max_attempts = settings.mail_max_attempts
    values, chosen = TABLE.values(query), TABLE.select(query)
    total = session.execute(chosen.total(), values).scalar_one()
    columns = (
        OutboxEmail.id,
        OutboxEmail.to_address,
        OutboxEmail.subject,
        OutboxEmail.kind,
        OutboxEmail.created_at,
        OutboxEmail.attempts,
        OutboxEmail.next_attempt_at,
        OutboxEmail.sent_at,
        OutboxEmail.last_error,
    )
    found = session.execute(chosen.page(select(*columns)), values).all()
    return TablePage(rows=[_row(r, max_attempts, now) for r in found], total=int(total))


def _when(value: datetime | None) -> str:
    return value.strftime("%Y-%m-%d %H:%M") if value is not None else ""


def _aware(value: datetime) -> datetime:
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def _row(found: Any, max_attempts: int, now: datetime) -> dict[str, str]:
    email_id, address, subject, kind, created, attempts, next_at, sent_at, error = found
    status = outbox_rules.status(sent_at=sent_at, attempts=attempts, max_attempts=max_attempts)
    next_try = ""
    if status in (outbox_rules.WAITING, outbox_rules.RETRYING) and next_at is not None:
        next_try = "due now" if _aware(next_at) <= now else _when(next_at)
    return {
        "id": str(email_id),
        "address": address,
        "subject": subject,
        "kind": KINDS.get(kind, kind),
        "created": _when(created),
        "status": status,
        "status_label": outbox_rules.LABELS[status],
        "attempts": str(attempts),
        "next_try": next_try,
        "sent": _when(sent_at),
        "last_error": (error or "")[:ERROR_SHOWN],
        "retry": "yes" if outbox_rules.can_retry(sent_at) else "",  # the row's 'Retry now' shows where set
    }


def retry_now(session: Session, *, actor_id: Caller, email_id: Any, now: datetime | None = None) -> bool:
    """Make an unsent e-mail due now, so the sender takes it in its next round (a failed one gets one
    more attempt, see outbox_status.attempts_after_retry)."""
    staff = require_staff(session, actor_id, roles.OUTBOX)
    target = whole_number(email_id)
    row = session.get(OutboxEmail, target, with_for_update=True) if target is not None else None
    if row is None:
        raise ServiceError(NOT_FOUND)
    if not outbox_rules.can_retry(row.sent_at):
        raise ServiceError(SENT_ALREADY)
    now = now or utcnow()
    before = {"attempts": row.attempts, "next_attempt_at": row.next_attempt_at}
    row.attempts = outbox_rules.attempts_after_retry(row.attempts, settings.mail_max_attempts)
    row.next_attempt_at = now
    session.add(row)
    audit.record(
        session,
        staff,
        "outbox.retry",
        "email",
        row.id,
        before,
        {"attempts": row.attempts, "next_attempt_at": row.next_attempt_at},
    )
    return True
