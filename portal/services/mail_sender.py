"""Background delivery of the outbox over SMTP, with retries and backoff.

Each backend worker (on every machine) runs `run_forever`; a row is claimed with a conditional
UPDATE (a lease on next_attempt_at, naming the value it read), so two workers never claim the same
message. A worker claims one message just before it delivers it: the lease, longer than any one delivery
can take, never runs out while the message waits behind others (claiming a whole batch at once let
another worker take, and send again, the batch's later messages once their leases had run out).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from contextlib import AbstractContextManager as ContextManager
from dataclasses import dataclass
from datetime import timedelta
from email.message import EmailMessage
from typing import Any

import aiosmtplib
from sqlmodel import Session, select, update

from portal.db import session_scope
from portal.domain.mail_retry import next_delay
from portal.models import OutboxEmail
from portal.models._base import utcnow
from portal.settings import settings

log = logging.getLogger(__name__)
LEASE = timedelta(minutes=10)  # aiosmtplib waits 30 s at most per step of a delivery
BATCH = 20  # messages one round sends at most


def claim_due(session: Session, *, limit: int = BATCH) -> list[OutboxEmail]:
    """Take a lease on up to `limit` due messages; only rows this call leased are returned (a row another
    worker leased first is skipped for the next one due)."""
    now = utcnow()
    candidates = session.exec(
        select(OutboxEmail)
        .where(
            OutboxEmail.sent_at.is_(None),
            OutboxEmail.next_attempt_at <= now,
            OutboxEmail.attempts < settings.mail_max_attempts,
        )
        .order_by(OutboxEmail.next_attempt_at, OutboxEmail.id)
        .limit(limit + 10)
    ).all()
    claimed: list[OutboxEmail] = []
    for row in candidates:
        if len(claimed) == limit:
            break
        result = session.exec(
            update(OutboxEmail)
            .where(
                OutboxEmail.id == row.id,
                OutboxEmail.next_attempt_at == row.next_attempt_at,
                OutboxEmail.sent_at.is_(None),
            )
            .values(next_attempt_at=now + LEASE)
        )
        if result.rowcount == 1:
            claimed.append(row)
    return claimed


def mark_sent(session: Session, *, email_id: int) -> None:
    session.exec(update(OutboxEmail).where(OutboxEmail.id == email_id).values(sent_at=utcnow(), last_error=None))


def mark_failed(session: Session, *, email_id: int, error: str) -> None:
    row = session.get(OutboxEmail, email_id)
    if row is None:
        return
    row.attempts += 1
    row.last_error = error[:1000]
    row.next_attempt_at = utcnow() + next_delay(row.attempts)
    session.add(row)


def build_message(row: OutboxEmail) -> EmailMessage:
    message = EmailMessage()
    message["From"] = settings.mail_from
    message["To"] = row.to_address
    message["Subject"] = row.subject
    if row.unsubscribe_url:  # one-click unsubscribe (RFC 8058) on every notification
        message["List-Unsubscribe"] = f"<{row.unsubscribe_url}>"
        message["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    message.set_content(row.body_text)
    return message


@dataclass(frozen=True)
class SmtpTarget:
    host: str
    port: int
    security: str = "starttls"  # starttls | tls | none
    username: str = ""
    password: str = ""

    @classmethod
    def from_settings(cls) -> SmtpTarget:
        return cls(
            settings.smtp_host,
            settings.smtp_port,
            settings.smtp_security,
            settings.smtp_username,
            settings.smtp_password,
        )


async def deliver(message: EmailMessage, target: SmtpTarget) -> None:
    await aiosmtplib.send(
        message,
        hostname=target.host,
        port=target.port,
        username=target.username or None,
        password=target.password or None,
        use_tls=target.security == "tls",
        start_tls=target.security == "starttls",
        timeout=30,
    )


async def send_due(
    session_factory: Callable[[], ContextManager[Session]] = session_scope, target: SmtpTarget | None = None
) -> int:
    """Deliver what is due now; returns how many were sent."""
    target = target or SmtpTarget.from_settings()

    def claim() -> list[OutboxEmail]:
        with session_factory() as session:
            return claim_due(session=session, limit=1)

    def record(fn: Callable[..., None], **kwargs: Any) -> None:
        with session_factory() as session:
            fn(session=session, **kwargs)

    sent = 0
    for _ in range(BATCH):  # one message claimed at a time, just before it is delivered
        claimed = await asyncio.to_thread(claim)
        if not claimed:
            break
        row = claimed[0]
        try:
            await deliver(build_message(row), target)
        except (TimeoutError, aiosmtplib.SMTPException, OSError) as err:
            log.warning("e-mail %s to %s failed: %s", row.id, row.to_address, err)
            await asyncio.to_thread(record, mark_failed, email_id=row.id, error=str(err) or err.__class__.__name__)
            continue
        await asyncio.to_thread(record, mark_sent, email_id=row.id)
        sent += 1
    return sent


async def run_forever() -> None:
    """Lifespan task of every backend worker. Does nothing when SMTP is not configured."""
    if not settings.smtp_host:
        log.info("SMTP_HOST not set: e-mails stay in the outbox (python -m portal.cli outbox)")
        return
    while True:
        sent = 0
        try:
            sent = await send_due()
        except asyncio.CancelledError:
            raise
        except Exception:  # keep the sender alive whatever one round hits
            log.exception("outbox delivery round failed")
        # A full round (a batch of invites queued): the next one at once, at the SMTP server's pace.
        await asyncio.sleep(0 if sent >= BATCH else settings.mail_poll_seconds)
