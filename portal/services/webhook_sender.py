"""Delivery of the webhook outbox (issue 39, item 4): every backend worker runs `run_forever`.

A round claims due deliveries, each by a conditional UPDATE that names the state it read (not delivered, not given
up, due, its lease free) and counts the row it changed: a row another worker claimed first is skipped, so two
workers never send one row at the same time. The claim is committed before anything is sent; the lease
(domain/webhooks.LEASE) is far longer than one attempt (TIMEOUT_SECONDS), and a worker that stops mid-round leaves
rows that are due again once their lease runs out: a restart loses nothing. Each delivery is signed by the Standard
Webhooks scheme (the `standardwebhooks` package) and POSTed with httpx; a 2xx answer delivers it; anything else
counts an attempt and sets the next one by the schedule, or gives the delivery up when the schedule is spent.
The receiver deduplicates by the webhook-id header (the event's id), the same on every attempt and on a replay.
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager as ContextManager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

import httpx
from sqlalchemy import or_, select, update
from sqlmodel import Session, col
from standardwebhooks import Webhook

from portal.db import session_scope
from portal.domain import webhooks as rules
from portal.models import ApiKey, WebhookDelivery, WebhookSubscription
from portal.models._base import utcnow
from portal.services.webhooks import local_urls, unseal

log = logging.getLogger(__name__)
BATCH = 10  # deliveries one round claims and sends at once (in parallel)
POLL_SECONDS = 2.0
USER_AGENT = "ParticipantsPortal-Webhooks/1"


@dataclass(frozen=True)
class Claimed:
    """A delivery this worker holds the lease of, with what sending it needs."""

    id: int
    event_id: str
    payload: dict[str, Any]
    attempts: int
    lease: datetime
    url: str
    secret: str | None  # None: the subscription's secret cannot be opened (SECRET_KEY changed)
    live: bool  # the subscription and its key are live


@dataclass(frozen=True)
class Outcome:
    status: int | None  # the receiver's HTTP status; None when there was no answer
    error: str | None  # None: delivered


def _free(now: datetime) -> Any:
    return or_(col(WebhookDelivery.claimed_until).is_(None), col(WebhookDelivery.claimed_until) <= now)


def _due(now: datetime) -> tuple[Any, ...]:
    return (
        col(WebhookDelivery.delivered_at).is_(None),
        col(WebhookDelivery.given_up_at).is_(None),
        col(WebhookDelivery.next_attempt_at) <= now,
        _free(now),
    )


Candidate = tuple[int, str, dict[str, Any], int, str, str, datetime | None, datetime | None]


def due_candidates(session: Session, *, now: datetime, limit: int = BATCH) -> list[Candidate]:
    """Deliveries due at `now` and not leased (oldest due first), with their subscription: what a round may claim."""
    rows = session.execute(
        select(
            WebhookDelivery.id,
            WebhookDelivery.event_id,
            WebhookDelivery.payload,
            WebhookDelivery.attempts,
            WebhookSubscription.url,
            WebhookSubscription.secret,
            WebhookSubscription.disabled_at,
            ApiKey.revoked_at,
        )
        .join(WebhookSubscription, col(WebhookSubscription.id) == WebhookDelivery.subscription_id)
        .join(ApiKey, col(ApiKey.id) == WebhookSubscription.api_key_id)
        .where(*_due(now))
        .order_by(col(WebhookDelivery.next_attempt_at), col(WebhookDelivery.id))
        .limit(limit)
    ).all()
    return [tuple(row) for row in rows]


def take(session: Session, candidates: list[Candidate], *, now: datetime, limit: int = BATCH) -> list[Claimed]:
    """Lease each candidate still due and free (a conditional UPDATE, its row count checked): a row another worker
    leased since it was read is skipped. Only the rows this call leased are returned."""
    lease = now + rules.LEASE
    claimed: list[Claimed] = []
    for delivery_id, event_id, payload, attempts, url, sealed, disabled_at, revoked_at in candidates:
        if len(claimed) == limit:
            break
        taken = session.execute(
            update(WebhookDelivery)
            .where(col(WebhookDelivery.id) == delivery_id, *_due(now))
            .values(claimed_until=lease)
            .execution_options(synchronize_session=False)
        ).rowcount  # type: ignore[attr-defined]
        if taken == 1:
            live = disabled_at is None and revoked_at is None
            secret = unseal(sealed) if live else None
            claimed.append(Claimed(delivery_id, event_id, dict(payload), attempts, lease, url, secret, live))
    return claimed


def claim_due(session: Session, *, now: datetime, limit: int = BATCH) -> list[Claimed]:
    """Lease up to `limit` due deliveries; only rows this call leased are returned."""
    return take(session, due_candidates(session, now=now, limit=limit + 10), now=now, limit=limit)


def body_of(payload: dict[str, Any]) -> str:
    """The request body: the event as compact JSON (the signature covers these exact bytes)."""
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False, sort_keys=True)


def signed_headers(secret: str, event_id: str, body: str, at: datetime) -> dict[str, str]:
    """Standard Webhooks' headers: webhook-id, webhook-timestamp (Unix seconds) and webhook-signature."""
    signature = Webhook(secret).sign(event_id, at, body)
    return {
        "content-type": "application/json",
        "user-agent": USER_AGENT,
        "webhook-id": event_id,
        "webhook-timestamp": str(int(at.timestamp())),
        "webhook-signature": signature,
    }


def _resolves_outside(url: str) -> str | None:
    """The URL's host as it resolves now, checked again (the check when it was subscribed read only its name)."""
    host = urlsplit(url).hostname or ""
    try:
        found = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        return None  # the POST fails with the resolver's own error, counted as one failed attempt
    return rules.resolved_problem([str(info[4][0]) for info in found])


def send(row: Claimed, *, client: httpx.Client) -> Outcome:
    """One attempt: the signed POST. The signature's timestamp is the wall clock of the attempt (receivers refuse
    one more than a few minutes away from their own clock)."""
    if not row.live:
        return Outcome(None, rules.SUBSCRIPTION_GONE)
    if row.secret is None:
        return Outcome(None, "The subscription's secret cannot be read (SECRET_KEY changed): subscribe again.")
    if not local_urls():
        problem = _resolves_outside(row.url)
        if problem:
            return Outcome(None, problem)
    try:
        body = body_of(row.payload)
        headers = signed_headers(row.secret, row.event_id, body, datetime.now(UTC))
        answer = client.post(row.url, content=body.encode(), headers=headers)
    except Exception as err:  # no answer (refused, timed out, a URL httpx cannot use): one failed attempt
        return Outcome(None, f"{err.__class__.__name__}: {err}"[: rules.ERROR_KEPT])
    if 200 <= answer.status_code < 300:
        return Outcome(answer.status_code, None)
    return Outcome(answer.status_code, f"HTTP {answer.status_code}: {answer.text[:300]}"[: rules.ERROR_KEPT])


def record(session: Session, row: Claimed, outcome: Outcome, *, now: datetime) -> bool:
    """Write the attempt's outcome, if this worker still holds the row's lease; whether it was written."""
    mine = (col(WebhookDelivery.id) == row.id, col(WebhookDelivery.claimed_until) == row.lease)
    attempts = row.attempts + 1
    values: dict[str, Any] = {"attempts": attempts, "claimed_until": None, "last_status": outcome.status}
    if outcome.error is None:
        values.update(delivered_at=now, last_error=None)
    else:
        values["last_error"] = outcome.error[: rules.ERROR_KEPT]
        delay = None if not row.live else rules.next_delay(attempts)
        if delay is None:
            values["given_up_at"] = now
        else:
            values["next_attempt_at"] = now + delay
    written = session.execute(
        update(WebhookDelivery).where(*mine).values(**values).execution_options(synchronize_session=False)
    ).rowcount  # type: ignore[attr-defined]
    return bool(written == 1)


def deliver_due(
    *,
    now: datetime | None = None,
    session_factory: Callable[[], ContextManager[Session]] = session_scope,
    limit: int = BATCH,
    timeout: float = rules.TIMEOUT_SECONDS,
    transport: httpx.BaseTransport | None = None,
) -> int:
    """One round: claim what is due at `now`, send it (in parallel), record each outcome; how many were delivered.
    `now` may be moved by tests (the schedule is read at that clock)."""
    now = now or utcnow()
    with session_factory() as session:
        claimed = claim_due(session, now=now, limit=limit)
    if not claimed:
        return 0
    with (
        httpx.Client(timeout=timeout, follow_redirects=False, transport=transport) as client,
        ThreadPoolExecutor(max_workers=len(claimed), thread_name_prefix="webhook") as pool,
    ):
        outcomes = list(pool.map(lambda row: send(row, client=client), claimed))
    delivered = 0
    with session_factory() as session:
        for row, outcome in zip(claimed, outcomes, strict=True):
            if record(session, row, outcome, now=now) and outcome.error is None:
                delivered += 1
            elif outcome.error is not None:
                log.info("webhook %s (delivery %s) not delivered: %s", row.event_id, row.id, outcome.error[:200])
    return delivered


async def run_forever() -> None:
    """Lifespan task of every backend worker: deliver what is due, round after round."""
    while True:
        claimed_full = False
        try:
            delivered = await asyncio.to_thread(deliver_due)
            claimed_full = delivered >= BATCH
        except asyncio.CancelledError:
            raise
        except Exception:  # keep the sender alive whatever one round hits
            log.exception("webhook delivery round failed")
        await asyncio.sleep(0 if claimed_full else POLL_SECONDS)
