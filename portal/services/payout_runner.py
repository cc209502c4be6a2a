"""The payout job (issue 37): orders approved rewards from the provider, reconciles what a lost webhook missed, and
applies the provider's webhooks. Each step is: a short transaction that takes the reward (ledger,
portal/services/payouts.py), the provider's call outside any transaction, a short transaction that writes what it
answered. Every backend worker runs the job (a lifespan task every PAYOUT_EVERY_SECONDS); a reward is taken by one
of them, and the order's external id (the reward's id) makes a repeated order the same order at the provider.

`python -m portal.cli pay-rewards` runs one round.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlmodel import Session

from portal.domain import payouts as rules
from portal.models._base import utcnow
from portal.services import payouts
from portal.services.providers.payouts import Delivery, PayoutError, PayoutProvider, WebhookEvent, payout_provider
from portal.settings import settings

log = logging.getLogger(__name__)
Sessions = Callable[[], AbstractContextManager[Session]]


def _sessions() -> Sessions:
    from portal.db import session_scope

    return session_scope


@dataclass
class Round:
    ordered: int = 0
    failed: int = 0
    reconciled: int = 0


def order_one(reward_id: int, *, provider: PayoutProvider | None = None, sessions: Sessions | None = None) -> bool:
    """Take the reward and order it; whether this call placed (or confirmed) its order."""
    provider = provider or payout_provider()
    sessions = sessions or _sessions()
    if provider.name == "manual":
        return False
    with sessions() as session:
        claim = payouts.claim(session, reward_id=reward_id, provider=provider.name)
    if claim is None:
        return False
    return _place(claim, provider, sessions)


def _place(claim: payouts.Claim, provider: PayoutProvider, sessions: Sessions) -> bool:
    try:
        if claim.provider_reward_id:
            delivery = provider.resend(provider_reward_id=claim.provider_reward_id, email=claim.email)
        else:
            delivery = provider.order(
                external_id=claim.external_id,
                amount_cents=claim.amount_cents,
                currency="USD",
                email=claim.email,
                name=claim.name,
            )
    except PayoutError as error:
        with sessions() as session:
            payouts.order_failed(session, reward_id=claim.reward_id, reason=error.message, retryable=error.retryable)
        return False
    with sessions() as session:
        return payouts.ordered(
            session,
            reward_id=claim.reward_id,
            order_id=delivery.order_id,
            provider_reward_id=delivery.reward_id,
            state=delivery.state,
            provider_status=delivery.provider_status,
            reason=delivery.reason,
        )


def apply(
    delivery: Delivery, *, reward_id: int, happened_at: datetime | None = None, sessions: Sessions | None = None
) -> bool:
    with (sessions or _sessions())() as session:
        return payouts.delivered(
            session,
            reward_id=reward_id,
            state=delivery.state,
            provider_status=delivery.provider_status,
            reason=delivery.reason,
            happened_at=happened_at,
        )


def reconcile_one(
    reward_id: int, provider_reward_id: str, *, provider: PayoutProvider | None = None, sessions: Sessions | None = None
) -> bool:
    """Ask the provider about a sent reward nobody heard of for a while, and apply what it says."""
    provider = provider or payout_provider()
    try:
        delivery = provider.reward(provider_reward_id=provider_reward_id)
    except PayoutError as error:
        log.warning("asking the payout provider about reward %s failed: %s", reward_id, error.message)
        return False
    return apply(delivery, reward_id=reward_id, sessions=sessions)


def run_round(
    *,
    provider: PayoutProvider | None = None,
    sessions: Sessions | None = None,
    now: datetime | None = None,
    workers: int = 8,
    limit: int = 500,
) -> Round:
    """One round: every reward due to be ordered (up to `limit`, `workers` orders at once), then the reconciliation."""
    provider = provider or payout_provider()
    sessions = sessions or _sessions()
    done = Round()
    if provider.name == "manual":
        return done
    now = now or utcnow()
    with sessions() as session:
        due = payouts.due_to_order(session, now=now, limit=limit)
        stale = payouts.due_to_reconcile(session, now=now, limit=limit)
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        for placed in pool.map(lambda rid: order_one(rid, provider=provider, sessions=sessions), due):
            if placed:
                done.ordered += 1
            else:
                done.failed += 1
        for fixed in pool.map(lambda pair: reconcile_one(*pair, provider=provider, sessions=sessions), stale):
            done.reconciled += int(fixed)
    return done


def receive_webhook(
    body: bytes, headers: Any, *, provider: PayoutProvider | None = None, sessions: Sessions | None = None
) -> int:
    """A provider's webhook: 401 when its signature or shape is wrong (nothing changes); 200 otherwise, once applied
    (a replayed event is recorded already and changes nothing; the reward's state is read from the provider, as the
    event only names it, and applied unless a newer event was applied first)."""
    provider = provider or payout_provider()
    sessions = sessions or _sessions()
    event: WebhookEvent | None = provider.webhook_event(body=body, headers=headers)
    if event is None:
        return 401
    with sessions() as session:
        if not payouts.record_event(
            session,
            provider=provider.name,
            event_id=event.uuid,
            name=event.name,
            resource_id=event.resource_id,
            happened_at=event.created,
        ):
            return 200
        reward_id = (
            payouts.reward_of_provider(session, provider_reward_id=event.resource_id)
            if event.resource_type == "rewards"
            else None
        )
    if reward_id is None:
        return 200
    try:
        delivery = provider.reward(provider_reward_id=event.resource_id)
    except PayoutError as error:
        # Recorded but not applied: the job's next round asks the provider (not an hour later).
        log.warning("reading reward %s after its webhook failed: %s", event.resource_id, error.message)
        with sessions() as session:
            payouts.reconcile_soon(session, reward_id=reward_id)
        return 200
    apply(delivery, reward_id=reward_id, happened_at=event.created, sessions=sessions)
    return 200


def _every() -> Iterator[float]:
    while True:
        yield max(1.0, float(settings.payout_every_seconds))


async def run_forever() -> None:
    for pause in _every():
        try:
            done = await asyncio.to_thread(run_round)
            if done.ordered or done.reconciled:
                log.info("payouts: %d ordered, %d reconciled", done.ordered, done.reconciled)
        except asyncio.CancelledError:
            raise
        except Exception:  # keep the job alive whatever one round hits
            log.exception("the payout round failed")
        await asyncio.sleep(pause)


__all__ = ["Round", "apply", "order_one", "receive_webhook", "reconcile_one", "rules", "run_forever", "run_round"]


def resend(
    account_id: int, reward_id: Any, *, provider: PayoutProvider | None = None, sessions: Sessions | None = None
) -> bool:
    """A participant's 'Send again' of a failed payout: taken once (payout_requests.resend_claim says why not), then
    resent by the provider to the payment e-mail (or ordered again when no order was ever placed)."""
    from portal.services import payout_requests

    provider = provider or payout_provider()
    sessions = sessions or _sessions()
    with sessions() as session:
        claim = payout_requests.resend_claim(session, account_id=account_id, reward_id=reward_id)
    return _place(claim, provider, sessions)


def pay_now(
    actor_id: Any, reward_id: Any, *, provider: PayoutProvider | None = None, sessions: Sessions | None = None
) -> bool:
    """Staff's 'Pay now': the approved reward is ordered at once instead of at the job's next round (staff with the
    pay permission only; audited). False when it was taken already (by the job or another tab)."""
    from portal.domain.staff import roles
    from portal.services.admin import audit
    from portal.services.admin.guard import require_staff
    from portal.services.admin.ids import one_id
    from portal.services.errors import ServiceError

    provider = provider or payout_provider()
    sessions = sessions or _sessions()
    with sessions() as session:
        staff = require_staff(session, actor_id, roles.PAY)
        rid = one_id(reward_id, "Choose a reward to pay.")
        if provider.name == "manual":
            raise ServiceError("Payouts are made by hand on this panel: mark the reward paid once it is paid.")
        claim = payouts.claim(session, reward_id=rid, provider=provider.name)
        if claim is None:
            raise ServiceError("Only an approved reward that has not been sent can be paid now.")
        audit.record(session, staff, "reward.pay-now", "reward", rid, {"payout": None}, {"payout": rules.SENDING})
    return _place(claim, provider, sessions)
