"""Background delivery of the SMS outbox through the SMS provider (issue 38), with retries and backoff.

As the e-mail sender (portal/services/mail_sender.py): every backend worker runs `run_forever`; a text is claimed
just before it is sent with a conditional UPDATE naming the lease it read, so two workers never send the same
row. A text the provider refuses for good (a bad number, one that replied STOP) is not tried again.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from contextlib import AbstractContextManager as ContextManager
from datetime import timedelta

from sqlmodel import Session, select, update

from portal.db import session_scope
from portal.domain import sms as rules
from portal.domain.mail_retry import next_delay
from portal.models import OutboxSms
from portal.models._base import utcnow
from portal.services.providers.sms import SmsError, SmsProvider, sms_provider
from portal.settings import settings

log = logging.getLogger(__name__)
LEASE = timedelta(minutes=5)  # the SDK waits 10 s at most for Twilio
BATCH = 50  # texts one round sends at most


def claim_one(session: Session) -> OutboxSms | None:
    """Lease the next due text (None: nothing is due, or another worker took each candidate first)."""
    now = utcnow()
    candidates = session.exec(
        select(OutboxSms)
        .where(
            OutboxSms.sent_at.is_(None),
            OutboxSms.next_attempt_at <= now,
            OutboxSms.attempts < rules.SEND_MAX_ATTEMPTS,
        )
        .order_by(OutboxSms.next_attempt_at, OutboxSms.id)
        .limit(10)
    ).all()
    for row in candidates:
        claimed = session.exec(
            update(OutboxSms)
            .where(
                OutboxSms.id == row.id,
                OutboxSms.next_attempt_at == row.next_attempt_at,
                OutboxSms.sent_at.is_(None),
            )
            .values(next_attempt_at=now + LEASE)
        )
        if claimed.rowcount == 1:
            return row
    return None


def mark_sent(session: Session, *, sms_id: int, provider_id: str) -> None:
    session.exec(
        update(OutboxSms)
        .where(OutboxSms.id == sms_id)
        .values(sent_at=utcnow(), provider_id=provider_id[:64] or None, last_error=None)
    )


def mark_failed(session: Session, *, sms_id: int, error: str, permanent: bool) -> None:
    row = session.get(OutboxSms, sms_id)
    if row is None:
        return
    row.attempts = rules.SEND_MAX_ATTEMPTS if permanent else row.attempts + 1
    row.last_error = error[:1000]
    row.next_attempt_at = utcnow() + next_delay(row.attempts)
    session.add(row)


async def send_due(
    session_factory: Callable[[], ContextManager[Session]] = session_scope, provider: SmsProvider | None = None
) -> int:
    """Send what is due now; how many were sent."""
    provider = provider or sms_provider()
    if provider is None:
        return 0

    def claim() -> OutboxSms | None:
        with session_factory() as session:
            return claim_one(session)

    def record(fn: Callable[..., None], **kwargs: object) -> None:
        with session_factory() as session:
            fn(session=session, **kwargs)

    sent = 0
    for _ in range(BATCH):
        row = await asyncio.to_thread(claim)
        if row is None:
            break
        try:
            sid = await asyncio.to_thread(provider.send, to=row.to_number, body=row.body)
        except SmsError as err:
            log.warning("text %s failed: %s", row.id, err.message)
            await asyncio.to_thread(record, mark_failed, sms_id=row.id, error=err.message, permanent=err.permanent)
            continue
        await asyncio.to_thread(record, mark_sent, sms_id=row.id, provider_id=sid)
        sent += 1
    return sent


async def run_forever() -> None:
    """Lifespan task of every backend worker. Does nothing when texts are off."""
    if not settings.sms_active:
        log.info("SMS_PROVIDER off (or no TWILIO_ACCOUNT_SID off loopback): no texts are sent")
        return
    while True:
        sent = 0
        try:
            sent = await send_due()
        except asyncio.CancelledError:
            raise
        except Exception:  # keep the sender alive whatever one round hits
            log.exception("SMS delivery round failed")
        await asyncio.sleep(0 if sent >= BATCH else settings.sms_poll_seconds)
