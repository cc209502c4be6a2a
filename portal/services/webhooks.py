"""Webhook subscriptions of API keys, and the events they receive (issue 39, item 4).

A key with the scope webhooks:write subscribes a URL to some events and gets the subscription's signing secret once
(kept encrypted, never shown again); it lists and removes only its own subscriptions. `emit` is called by the
services whose change an event reports, in the transaction of that change: it adds one WebhookDelivery (the
outbox) per live subscription of a live key that wants the event, all with the same event id, so the delivery
is written if and only if the change is. portal/services/webhook_sender.py then delivers them.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from cryptography.fernet import Fernet, InvalidToken
from sqlalchemy import func, select, update
from sqlmodel import Session, col

from portal.domain import local_oidc
from portal.domain import webhooks as rules
from portal.domain.staff import roles
from portal.models import Account, ApiKey, ProblemReport, Review, Reward, Test, WebhookDelivery, WebhookSubscription
from portal.models._base import utcnow
from portal.services.admin import audit
from portal.services.admin.guard import NOT_ALLOWED, ApiKeyCaller, Caller, Staff, StaffRefused, staff_of
from portal.services.errors import ServiceError
from portal.settings import settings

SCOPE = "webhooks:write"


class SubscriptionRefused(ServiceError):
    """The subscription's input is not valid."""


class SubscriptionNotFound(ServiceError):
    """No live subscription of this key has that id."""


@dataclass(frozen=True)
class SubscriptionInfo:
    id: int
    url: str
    events: list[str]
    created_at: datetime


@dataclass(frozen=True)
class CreatedSubscription:
    id: int
    url: str
    events: list[str]
    created_at: datetime
    secret: str  # shown once, never again


# --- the secret at rest ------------------------------------------------------------------------------------------


def _fernet(secret_key: str | None = None) -> Fernet:
    key = hmac.new((secret_key or settings.secret_key).encode(), b"portal-webhook-secret", hashlib.sha256).digest()
    return Fernet(base64.urlsafe_b64encode(key))


def seal(secret: str, *, secret_key: str | None = None) -> str:
    """The secret as stored: encrypted with a key derived from SECRET_KEY (`secret_key`: another app's)."""
    return _fernet(secret_key).encrypt(secret.encode()).decode()


def unseal(sealed: str) -> str | None:
    """The signing secret (None when SECRET_KEY changed since: the subscription must be made again)."""
    try:
        return _fernet().decrypt(sealed.encode()).decode()
    except (InvalidToken, ValueError):
        return None


# --- subscriptions -----------------------------------------------------------------------------------------------


def _key_caller(session: Session, actor_id: Caller) -> Staff:
    """The caller as a live API key with the scope webhooks:write (StaffRefused otherwise)."""
    staff = staff_of(session, actor_id) if isinstance(actor_id, ApiKeyCaller) else None
    if staff is None or staff.api_key_id is None or SCOPE not in (staff.scopes or ()):
        raise StaffRefused(NOT_ALLOWED)
    return staff


def local_urls() -> bool:
    """http:// and loopback URLs are allowed when the portal itself runs on a loopback BASE_URL."""
    return local_oidc.is_loopback(settings.base_url)


def subscribe(session: Session, *, actor_id: Caller, url: Any, events: Any) -> CreatedSubscription:
    staff = _key_caller(session, actor_id)
    assert staff.api_key_id is not None
    clean_url, url_problem = rules.clean_url(url, local=local_urls())
    chosen, events_problem = rules.clean_events(events)
    problems = {field: message for field, message in (("url", url_problem), ("events", events_problem)) if message}
    if problems:
        field, message = next(iter(problems.items()))
        raise SubscriptionRefused(message, field=field, errors=problems)
    live = session.execute(
        select(func.count())
        .select_from(WebhookSubscription)
        .where(WebhookSubscription.api_key_id == staff.api_key_id, col(WebhookSubscription.disabled_at).is_(None))
    ).scalar_one()
    if live >= rules.SUBSCRIPTIONS_PER_KEY:
        raise SubscriptionRefused(rules.TOO_MANY)
    secret = rules.new_secret()
    row = WebhookSubscription(api_key_id=staff.api_key_id, url=clean_url, events=chosen, secret=seal(secret))
    session.add(row)
    session.flush()
    audit.record(
        session, staff, "webhook.subscribe", "webhook-subscription", row.id, after={"url": clean_url, "events": chosen}
    )
    return CreatedSubscription(id=row.id, url=clean_url, events=chosen, created_at=row.created_at, secret=secret)


def list_subscriptions(session: Session, *, actor_id: Caller) -> list[SubscriptionInfo]:
    """The key's own live subscriptions, oldest first."""
    staff = _key_caller(session, actor_id)
    rows = session.scalars(
        select(WebhookSubscription)
        .where(WebhookSubscription.api_key_id == staff.api_key_id, col(WebhookSubscription.disabled_at).is_(None))
        .order_by(col(WebhookSubscription.id))
    ).all()
    return [SubscriptionInfo(id=r.id, url=r.url, events=list(r.events or []), created_at=r.created_at) for r in rows]


def unsubscribe(session: Session, *, actor_id: Caller, subscription_id: Any, now: datetime | None = None) -> None:
    """Remove one of the key's own subscriptions, once (its deliveries not yet made are given up by the sender)."""
    staff = _key_caller(session, actor_id)
    target = subscription_id if isinstance(subscription_id, int) and not isinstance(subscription_id, bool) else None
    moved = (
        session.execute(
            update(WebhookSubscription)
            .where(
                col(WebhookSubscription.id) == target,
                col(WebhookSubscription.api_key_id) == staff.api_key_id,
                col(WebhookSubscription.disabled_at).is_(None),
            )
            .values(disabled_at=now or utcnow())
        ).rowcount  # type: ignore[attr-defined]
        if target is not None
        else 0
    )
    if moved != 1:
        raise SubscriptionNotFound(rules.SUBSCRIPTION_NOT_FOUND)
    audit.record(session, staff, "webhook.unsubscribe", "webhook-subscription", target)


# --- events ------------------------------------------------------------------------------------------------------


def _stamp(value: datetime) -> str:
    return value.isoformat().replace("+00:00", "Z")


def emit(session: Session, event_type: str, data: dict[str, Any], *, now: datetime | None = None) -> int:
    """Queue the event for every live subscription of a live key that wants it, in the caller's transaction;
    returns how many deliveries were added. `data`: ids and the fields a customer needs, never a secret."""
    return emit_many(session, event_type, [data], now=now)


def emit_many(session: Session, event_type: str, datas: list[dict[str, Any]], *, now: datetime | None = None) -> int:
    """`emit` for several events of one type (a bulk decision): the subscriptions are read once."""
    if event_type not in rules.EVENTS:
        raise ValueError(f"unknown webhook event {event_type!r}")
    if not datas:
        return 0
    wanted = _subscribers(session, event_type)
    if not wanted:
        return 0
    now = now or utcnow()
    for data in datas:
        event_id = rules.new_event_id()  # one id per event, the same for every subscription (the receiver's key)
        payload = {"type": event_type, "timestamp": _stamp(now), "data": data}
        for sub_id in wanted:
            session.add(
                WebhookDelivery(
                    subscription_id=sub_id,
                    event_id=event_id,
                    event_type=event_type,
                    payload=payload,
                    created_at=now,
                    next_attempt_at=now,
                )
            )
    session.flush()
    return len(wanted) * len(datas)


def _subscribers(session: Session, event_type: str) -> list[int]:
    """Ids of the live subscriptions of live keys that want `event_type`."""
    found = session.execute(
        select(WebhookSubscription.id, WebhookSubscription.events, Account.staff_role)
        .join(ApiKey, col(ApiKey.id) == WebhookSubscription.api_key_id)
        .join(Account, col(Account.id) == ApiKey.created_by_id)
        .where(
            col(WebhookSubscription.disabled_at).is_(None),
            col(ApiKey.revoked_at).is_(None),
            col(Account.removed_at).is_(None),
        )
        .order_by(col(WebhookSubscription.id))
    ).all()
    # A key works while its creator may hold keys (services/admin/guard.py); the events list is JSON (filtered here).
    return [sub for sub, events, role in found if event_type in (events or []) and roles.may(role, roles.API_KEYS)]


# --- the events of the portal's changes (called by the services that make them) -----------------------------------


def _when(value: datetime | None) -> str | None:
    return _stamp(value) if value is not None else None


def review_submitted(session: Session, review: Review, reward: Reward | None) -> int:
    return emit(
        session,
        rules.REVIEW_SUBMITTED,
        {
            "review_id": review.id,
            "test_id": review.test_id,
            "version_id": review.version_id,
            "participant_id": review.account_id,
            "status": review.status,
            "submitted_at": _when(review.created_at),
            "reward_id": reward.id if reward is not None else None,
        },
    )


def reviews_decided(session: Session, review_ids: list[int]) -> int:
    """One review.decided per review of `review_ids` (each decided in this transaction), as they are now."""
    if not review_ids:
        return 0
    rows = session.execute(
        select(
            Review.id,
            Review.test_id,
            Review.version_id,
            Review.account_id,
            Review.status,
            Review.decided_at,
            Review.reject_reason,
            Reward.id,
            Reward.status,
        )
        .join(Reward, col(Reward.review_id) == Review.id, isouter=True)
        .where(col(Review.id).in_(review_ids))
        .order_by(col(Review.id))
    ).all()
    datas = [
        {
            "review_id": review_id,
            "test_id": test_id,
            "version_id": version_id,
            "participant_id": account_id,
            "status": status,
            "decided_at": _when(decided_at),
            "reason": reason,
            "reward_id": reward_id,
            "reward_status": reward_status,
        }
        for review_id, test_id, version_id, account_id, status, decided_at, reason, reward_id, reward_status in rows
    ]
    return emit_many(session, rules.REVIEW_DECIDED, datas)


def reward_moved(session: Session, reward_id: int, *, paid: bool, reason: str | None = None) -> int:
    """reward.paid or reward.failed for a reward that moved so in this transaction."""
    reward = session.get(Reward, reward_id, populate_existing=True)  # as the UPDATE just left it
    if reward is None:
        return 0
    data: dict[str, Any] = {
        "reward_id": reward.id,
        "review_id": reward.review_id,
        "test_id": reward.test_id,
        "participant_id": reward.account_id,
        "amount_cents": reward.amount_cents,
        "status": reward.status,
    }
    if paid:
        data["paid_on"] = _when(reward.paid_on)
    else:
        data["reason"] = (reason or "")[:300] or None
    return emit(session, rules.REWARD_PAID if paid else rules.REWARD_FAILED, data)


def test_full(session: Session, test: Test, reviews: int) -> int:
    return emit(
        session,
        rules.TEST_FULL,
        {"test_id": test.id, "participant_limit": test.participant_limit, "reviews": reviews, "status": test.status},
    )


def problem_reported(session: Session, report: ProblemReport) -> int:
    """The report's id, test and category (its text is the participant's own words: read it at /admin)."""
    return emit(
        session,
        rules.PROBLEM_REPORTED,
        {
            "report_id": report.id,
            "test_id": report.test_id,
            "category": report.category,
            "participant_id": report.account_id,
            "reported_at": _when(report.created_at),
        },
    )
