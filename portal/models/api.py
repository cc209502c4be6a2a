"""The REST API (issue 39; migration 0020): its keys, the answers kept for idempotent writes, webhook subscriptions
and the webhook outbox."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Index
from sqlmodel import Field, SQLModel

from portal.models._base import created_field, json_field


class ApiKey(SQLModel, table=True):
    """A key a super-admin created: only its SHA-256 is kept; it acts for its creator within its scopes."""

    __tablename__ = "api_key"

    id: int = Field(default=None, primary_key=True)
    name: str = Field(max_length=100)
    prefix: str = Field(max_length=16)  # the key's first characters, to tell keys apart in lists and logs
    key_hash: str = Field(max_length=64, unique=True)
    scopes: list[str] = json_field(list)
    rate_per_minute: int = Field(default=600)
    created_by_id: int = Field(foreign_key="account.id", index=True, ondelete="CASCADE")
    created_at: datetime = created_field()
    last_used_at: datetime | None = None
    revoked_at: datetime | None = None
    revoked_by_id: int | None = None


class IdempotentRequest(SQLModel, table=True):
    """The answer to a POST made with an Idempotency-Key, kept so a repeat gets the same answer and no second
    effect. Written in the transaction of the effect (both commit, or neither)."""

    __tablename__ = "idempotent_request"
    __table_args__ = (Index("uq_idempotent_request_key", "api_key_id", "key", unique=True),)

    id: int = Field(default=None, primary_key=True)
    api_key_id: int = Field(foreign_key="api_key.id", ondelete="CASCADE")
    key: str = Field(max_length=255)
    fingerprint: str = Field(max_length=64)  # SHA-256 of method, path and body
    status_code: int
    response: Any = json_field(dict)
    created_at: datetime = created_field(index=True)


class WebhookSubscription(SQLModel, table=True):
    """An API key's subscription: where to POST which events, and the Standard Webhooks secret that signs them
    (kept encrypted; shown once)."""

    __tablename__ = "webhook_subscription"

    id: int = Field(default=None, primary_key=True)
    api_key_id: int = Field(foreign_key="api_key.id", index=True, ondelete="CASCADE")
    url: str = Field(max_length=2000)
    events: list[str] = json_field(list)
    secret: str = Field(max_length=500)
    created_at: datetime = created_field()
    disabled_at: datetime | None = None


class WebhookDelivery(SQLModel, table=True):
    """One event for one subscription: the webhook outbox. Written in the transaction of the change; a sender on
    each worker claims due rows (`claimed_until`, a lease) and retries with backoff for more than a day.
    `event_id` is the Standard Webhooks message id (the receiver's deduplication key)."""

    __tablename__ = "webhook_delivery"
    __table_args__ = (
        Index("ix_webhook_delivery_due", "delivered_at", "given_up_at", "next_attempt_at"),
        Index("uq_webhook_delivery_event", "subscription_id", "event_id", unique=True),
        Index("ix_webhook_delivery_created_id", "created_at", "id"),
    )

    id: int = Field(default=None, primary_key=True)
    subscription_id: int = Field(foreign_key="webhook_subscription.id", ondelete="CASCADE")
    event_id: str = Field(max_length=64)
    event_type: str = Field(max_length=64)
    payload: dict[str, Any] = json_field(dict)
    created_at: datetime = created_field()
    attempts: int = Field(default=0)
    next_attempt_at: datetime = created_field()
    claimed_until: datetime | None = None
    delivered_at: datetime | None = None
    given_up_at: datetime | None = None
    last_status: int | None = None
    last_error: str | None = Field(default=None, max_length=1000)
