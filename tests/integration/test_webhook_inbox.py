"""The local stand-in of a customer's webhook receiver (issue 39; portal/standins/webhook_inbox): on a loopback
BASE_URL a key subscribes to /local-webhooks/inbox, and what arrives there is verified with the subscription's
secret (standardwebhooks), counted once per webhook-id and listed at /local-webhooks."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from standardwebhooks import Webhook

from portal.settings import settings
from tests.support.api import api_client, api_key


def signed(secret: str, event_id: str, event: dict) -> tuple[bytes, dict[str, str]]:
    body = json.dumps(event).encode()
    now = datetime.now(UTC)
    signature = Webhook(secret).sign(event_id, now, body.decode())
    return body, {
        "webhook-id": event_id,
        "webhook-timestamp": str(int(now.timestamp())),
        "webhook-signature": signature,
        "content-type": "application/json",
    }


def test_the_inbox_verifies_counts_once_per_id_and_lists_what_arrived(session, monkeypatch):
    inbox = f"{settings.base_url}/local-webhooks/inbox"
    key = api_key(session, "webhooks:write")
    with api_client(session, monkeypatch, key) as client:
        made = client.post("/webhooks/subscriptions", json={"url": inbox, "events": ["review.submitted"]})
        assert made.status_code == 201, made.json()
        secret = made.json()["secret"]
        event = {"type": "review.submitted", "timestamp": "2026-12-02T12:00:00Z", "data": {"review_id": 41}}
        body, headers = signed(secret, "msg_inbox_1", event)
        first = client.post("http://testserver/local-webhooks/inbox", content=body, headers=headers)
        again = client.post("http://testserver/local-webhooks/inbox", content=body, headers=headers)
        forged_body, forged = signed("whsec_" + "A" * 43 + "=", "msg_inbox_2", event)
        refused = client.post("http://testserver/local-webhooks/inbox", content=forged_body, headers=forged)
        page = client.get("http://testserver/local-webhooks")
    assert (first.status_code, again.status_code, refused.status_code) == (204, 204, 401)
    assert page.status_code == 200
    text = page.text
    assert "msg_inbox_1" in text and "msg_inbox_2" in text
    row = text.split("msg_inbox_1")[1].split("</tr>")[0]
    assert "<td>review.submitted</td>" in row and "<td>Yes</td>" in row and "<td>2</td>" in row
    forged_row = text.split("msg_inbox_2")[1].split("</tr>")[0]
    assert "<td>No</td>" in forged_row
