"""Tremendous's webhooks: `Tremendous-Webhook-Signature: sha256=<hex HMAC-SHA256 of the raw body, keyed by the
webhook's private key>`, and a JSON body {"event", "uuid", "created_utc", "payload": {"resource": {"id",
"type"}, "meta": {}}}."""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from portal.services.providers.payouts.base import WebhookEvent

HEADER = "Tremendous-Webhook-Signature"


def signature(body: bytes, key: str) -> str:
    """The header's value for `body` signed with `key`."""
    return "sha256=" + hmac.new(key.encode(), body, hashlib.sha256).hexdigest()


def header(headers: Mapping[str, str], name: str = HEADER) -> str:
    """A header's value whatever the case of its name ('' when absent)."""
    wanted = name.lower()
    for key, value in headers.items():
        if key.lower() == wanted:
            return value
    return ""


def verified(body: bytes, value: str, key: str) -> bool:
    """Whether the signature header's `value` signs `body` with `key` (compared in constant time)."""
    scheme, _, received = value.strip().partition("=")
    if not key or scheme.strip().lower() != "sha256" or not received:
        return False
    expected = hmac.new(key.encode(), body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, received.strip().lower())


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _created(value: Any) -> datetime | None:
    try:
        created = datetime.fromisoformat(_text(value))
    except ValueError:
        return None
    return created.replace(tzinfo=UTC) if created.tzinfo is None else created.astimezone(UTC)


def event(body: bytes, headers: Mapping[str, str], key: str) -> WebhookEvent | None:
    """The event of a signed webhook request; None for a wrong or missing signature or a body of another shape."""
    if not verified(body, header(headers), key):
        return None
    try:
        data = json.loads(body)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    payload = data.get("payload")
    resource = payload.get("resource") if isinstance(payload, dict) else None
    if not isinstance(resource, dict):
        return None
    created = _created(data.get("created_utc"))
    found = WebhookEvent(
        uuid=_text(data.get("uuid")),
        name=_text(data.get("event")),
        created=created or datetime.now(UTC),
        resource_id=_text(resource.get("id")),
        resource_type=_text(resource.get("type")),
    )
    return found if created is not None and found.uuid and found.name and found.resource_id else None
