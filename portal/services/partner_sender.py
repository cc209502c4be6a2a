"""Background delivery of the reports owed to partners (issue 39, item 5): the research service's completions and
the panel exchange's callbacks, from the `partner_callback` outbox, with retries and backoff for over a day.

As the SMS sender: every backend worker runs `run_forever`; a row is claimed just before it is sent with a
conditional UPDATE naming the `next_attempt_at` it read (row count checked), so two workers never send the same row
at once; each report carries `Idempotency-Key: partner-callback-<id>`, so a report sent again after a crash between
sending and recording is kept once by the partner.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from contextlib import AbstractContextManager as ContextManager
from datetime import timedelta
from typing import Any, Protocol

from sqlmodel import Session, select, update

from portal.db import session_scope
from portal.domain import partners as rules
from portal.models import PartnerCallback
from portal.models._base import utcnow
from portal.services.providers.partners import PartnerError, panel_exchange, research_service
from portal.settings import settings

log = logging.getLogger(__name__)
LEASE = timedelta(minutes=2)  # a report waits PARTNER_TIMEOUT_SECONDS (10 s) at most
BATCH = 50


class Reporter(Protocol):
    def report(self, *, payload: dict[str, Any], idempotency_key: str) -> None: ...


def idempotency_key(row_id: int) -> str:
    return f"partner-callback-{row_id}"


def claim_one(session: Session) -> PartnerCallback | None:
    """Lease the next due report (None: nothing is due, or another worker took each candidate first)."""
    now = utcnow()
    candidates = session.exec(
        select(PartnerCallback)
        .where(
            PartnerCallback.delivered_at.is_(None),
            PartnerCallback.next_attempt_at <= now,
            PartnerCallback.attempts < rules.CALLBACK_MAX_ATTEMPTS,
        )
        .order_by(PartnerCallback.next_attempt_at, PartnerCallback.id)
        .limit(10)
    ).all()
    for row in candidates:
        claimed = session.exec(
            update(PartnerCallback)
            .where(
                PartnerCallback.id == row.id,
                PartnerCallback.next_attempt_at == row.next_attempt_at,
                PartnerCallback.delivered_at.is_(None),
            )
            .values(next_attempt_at=now + LEASE)
        )
        if claimed.rowcount == 1:
            return row
    return None


def mark_delivered(session: Session, *, row_id: int) -> None:
    session.exec(
        update(PartnerCallback).where(PartnerCallback.id == row_id).values(delivered_at=utcnow(), last_error=None)
    )


def mark_failed(session: Session, *, row_id: int, error: str, permanent: bool) -> None:
    row = session.get(PartnerCallback, row_id)
    if row is None:
        return
    row.attempts = rules.CALLBACK_MAX_ATTEMPTS if permanent else row.attempts + 1
    row.last_error = error[:1000]
    row.next_attempt_at = utcnow() + rules.callback_delay(row.attempts)
    session.add(row)


def _reporters() -> dict[str, Reporter | None]:
    return {rules.RESPONDENT: research_service(), rules.PANEL: panel_exchange()}


async def deliver_due(
    session_factory: Callable[[], ContextManager[Session]] = session_scope,
    reporters: dict[str, Reporter | None] | None = None,
) -> int:
    """Send what is due now; how many were delivered."""
    reporters = reporters if reporters is not None else _reporters()

    def claim() -> PartnerCallback | None:
        with session_factory() as session:
            return claim_one(session)

    def record(fn: Callable[..., None], **kwargs: object) -> None:
        with session_factory() as session:
            fn(session=session, **kwargs)

    delivered = 0
    for _ in range(BATCH):
        row = await asyncio.to_thread(claim)
        if row is None:
            break
        reporter = reporters.get(row.partner)
        try:
            if reporter is None:
                raise PartnerError(f"no {row.partner} configured")
            await asyncio.to_thread(reporter.report, payload=dict(row.payload), idempotency_key=idempotency_key(row.id))
        except PartnerError as err:
            log.warning("partner callback %s failed: %s", row.id, err.message)
            await asyncio.to_thread(record, mark_failed, row_id=row.id, error=err.message, permanent=err.permanent)
            continue
        await asyncio.to_thread(record, mark_delivered, row_id=row.id)
        delivered += 1
    return delivered


async def run_forever() -> None:
    """Lifespan task of every backend worker."""
    while True:
        sent = 0
        try:
            sent = await deliver_due()
        except asyncio.CancelledError:
            raise
        except Exception:  # keep the sender alive whatever one round hits
            log.exception("partner callback round failed")
        await asyncio.sleep(0 if sent >= BATCH else settings.partner_poll_seconds)
