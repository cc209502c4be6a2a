"""Tremendous's webhooks: the signature (HMAC-SHA256 of the raw body keyed by the webhook's private key) is
checked before anything is read; a wrong key, a changed body, another scheme or a body of another shape give
None."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from portal.services.providers.payouts import TremendousProvider
from portal.services.providers.payouts.webhooks import event, signature, verified

KEY = "webhook-private-key"


def body(**changes: object) -> bytes:
    data: dict[str, object] = {
        "event": "REWARDS.DELIVERY.SUCCEEDED",
        "uuid": "7f0c8a56-3c2e-4a53-9d8e-2f4b1e6c9a10",
        "created_utc": "2026-11-26T21:00:00.123Z",
        "payload": {"resource": {"id": "REWARD000001", "type": "rewards"}, "meta": {}},
    }
    data.update(changes)
    return json.dumps(data).encode()


def signed(raw: bytes, key: str = KEY) -> dict[str, str]:
    return {"Tremendous-Webhook-Signature": signature(raw, key), "Content-Type": "application/json"}


def test_a_signed_webhook_gives_its_event():
    raw = body()
    found = event(raw, signed(raw), KEY)
    assert found is not None
    assert (found.uuid, found.name, found.resource_id, found.resource_type) == (
        "7f0c8a56-3c2e-4a53-9d8e-2f4b1e6c9a10",
        "REWARDS.DELIVERY.SUCCEEDED",
        "REWARD000001",
        "rewards",
    )
    assert found.created == datetime(2026, 11, 26, 21, 0, 0, 123000, tzinfo=UTC)


def test_the_signature_is_the_hex_hmac_sha256_of_the_raw_body():
    # A known value (computed independently: `printf '{}' | openssl dgst -sha256 -hmac key`).
    assert signature(b"{}", "key") == "sha256=a777724d943eb48dc69bca8a4a6d57a04db3f9ec7e1de4e581e860265bdf3032"
    assert verified(b"{}", signature(b"{}", "key"), "key")
    assert verified(b"{}", "sha256=A777724D943EB48DC69BCA8A4A6D57A04DB3F9EC7E1DE4E581E860265BDF3032", "key")
    assert not verified(b"{} ", signature(b"{}", "key"), "key")


def test_a_changed_body_is_refused():
    raw = body()
    tampered = raw.replace(b"SUCCEEDED", b"FAILED")
    assert event(tampered, signed(raw), KEY) is None


def test_a_wrong_key_is_refused():
    raw = body()
    assert event(raw, signed(raw, "another-key"), KEY) is None


@pytest.mark.parametrize(
    "header",
    ["", "sha1=abc", "sha256=", "sha256", "not a signature"],
)
def test_a_missing_or_malformed_signature_is_refused(header):
    raw = body()
    assert event(raw, {"Tremendous-Webhook-Signature": header} if header else {}, KEY) is None


def test_no_key_configured_refuses_everything():
    raw = body()
    assert event(raw, signed(raw, ""), "") is None


def test_the_header_name_is_read_whatever_its_case():
    raw = body()
    assert event(raw, {"tremendous-webhook-signature": signature(raw, KEY)}, KEY) is not None


@pytest.mark.parametrize(
    "raw",
    [
        b"not json",
        b"[]",
        body(payload={}),
        body(payload={"resource": "REWARD000001"}),
        body(uuid=""),
        body(event=None),
        body(created_utc="yesterday"),
        body(payload={"resource": {"type": "rewards"}, "meta": {}}),
    ],
)
def test_a_signed_body_of_another_shape_is_refused(raw):
    assert event(raw, signed(raw), KEY) is None


def test_a_time_without_zone_is_utc():
    raw = body(created_utc="2026-11-26T21:00:00")
    found = event(raw, signed(raw), KEY)
    assert found is not None and found.created == datetime(2026, 11, 26, 21, 0, tzinfo=UTC)


def test_the_tremendous_provider_checks_with_its_webhook_key():
    provider = TremendousProvider(
        host="http://127.0.0.1:9/api/v2", api_key="K", campaign_id="CAMPAIGN00001", webhook_key=KEY
    )
    raw = body()
    assert provider.webhook_event(body=raw, headers=signed(raw)) is not None
    assert provider.webhook_event(body=raw, headers=signed(raw, "other")) is None
