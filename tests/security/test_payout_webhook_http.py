"""POST /webhooks/tremendous over plain HTTP against the real app (issue 37). The app runs Tremendous's local
stand-in, whose webhook key is derived from SECRET_KEY (portal/settings.py, local_payouts_secret('webhook')): a test
signs as the provider would with it. Unsigned, wrongly signed and too large bodies are refused and leave no trace; a
signed event for a reward the portal does not know is taken (200) and changes no reward; the same event twice is
recorded once; the server logs no traceback.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import uuid
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from sqlmodel import select

from portal.domain import payouts as rules
from portal.http.json_body import MAX_BODY_BYTES, TOO_LARGE
from portal.models import Account, PayoutEvent, Reward
from portal.models._base import utcnow
from portal.services.providers.payouts.webhooks import HEADER
from tests.e2e.conftest import AppServer
from tests.security.test_admin_authorization import _review
from tests.support.people import demo_test, person
from tests.support.raw_tab import tracebacks

PATH = "/webhooks/tremendous"


def webhook_key(app_server: AppServer) -> str:
    """The stand-in's webhook key, as the app derives it from its SECRET_KEY."""
    secret = app_server.env["SECRET_KEY"].encode()
    return hmac.new(secret, b"local-payouts:webhook", hashlib.sha256).hexdigest()


def signed(body: bytes, key: str) -> dict[str, str]:
    return {HEADER: "sha256=" + hmac.new(key.encode(), body, hashlib.sha256).hexdigest()}


def event_body(resource_id: str, event_id: str | None = None, name: str = "REWARDS.DELIVERY.SUCCEEDED") -> bytes:
    return json.dumps(
        {
            "event": name,
            "uuid": event_id or str(uuid.uuid4()),
            "created_utc": datetime.now(UTC).isoformat(),
            "payload": {"resource": {"id": resource_id, "type": "rewards"}, "meta": {}},
        }
    ).encode()


def post(http: httpx.Client, body: bytes, headers: dict[str, str] | None = None) -> httpx.Response:
    return http.post(PATH, content=body, headers={"Content-Type": "application/json", **(headers or {})})


def events_named(app_server: AppServer, event_id: str) -> list[tuple[str, str, str]]:
    with app_server.db() as db:
        rows = db.exec(select(PayoutEvent).where(PayoutEvent.event_id == event_id)).all()
        return [(r.provider, r.name, r.resource_id) for r in rows]


@pytest.fixture
def sent_reward(app_server: AppServer) -> tuple[int, tuple]:
    """A reward whose link was sent (the provider's reward SENT-...): its id and its ledger columns."""
    with app_server.db() as db:
        owner = person(db)
        _, reward = _review(db, demo_test(db, "01-survey.json").id, db.get(Account, owner.account_id), approved=True)
        reward.payout, reward.provider, reward.provider_order_id = rules.SENT, "tremendous", f"ORDER-{reward.id}"
        reward.provider_reward_id, reward.provider_status = f"SENT-{uuid.uuid4().hex[:10]}", "DELIVERED"
        reward.ordered_at = reward.sent_at = utcnow()
        reward.attempts, reward.payment_email = 1, owner.email
        reward.next_attempt_at = utcnow() + timedelta(hours=1)  # the poll asks about it in an hour
        db.add(reward)
        db.commit()
        return reward.id, _ledger(app_server, reward.id)


def _ledger(app_server: AppServer, reward_id: int) -> tuple:
    with app_server.db() as db:
        r = db.get(Reward, reward_id)
        return (
            r.status,
            r.payout,
            r.provider_reward_id,
            r.provider_status,
            r.failure_reason,
            r.paid_on,
            r.sent_at,
            r.last_event_at,
            r.attempts,
        )


@pytest.fixture
def log_start(app_server: AppServer) -> int:
    return app_server.log_path.stat().st_size


def new_tracebacks(app_server: AppServer, start: int) -> list[str]:
    return tracebacks(app_server.log_path.read_bytes()[start:].decode(errors="replace"))


def test_an_unsigned_or_wrongly_signed_webhook_is_refused_and_leaves_no_trace(app_server, http, sent_reward, log_start):
    reward_id, before = sent_reward
    key = webhook_key(app_server)
    for headers in (
        None,  # no signature
        {HEADER: ""},
        {HEADER: "sha256="},
        {HEADER: "md5=" + "0" * 32},
        {HEADER: "sha256=" + "0" * 64},
    ):
        event_id = str(uuid.uuid4())
        r = post(http, event_body(before[2], event_id), headers)
        assert r.status_code == 401, headers
        assert r.json()["errors"][0]["message"] == "The signature is not valid."
        assert events_named(app_server, event_id) == []
    # Signed, but with another key; and the right key over another body than the one sent.
    event_id = str(uuid.uuid4())
    body = event_body(before[2], event_id)
    assert post(http, body, signed(body, key[::-1])).status_code == 401
    assert post(http, body, signed(body + b" ", key)).status_code == 401
    assert post(http, body.replace(b"SUCCEEDED", b"FAILED"), signed(body, key)).status_code == 401
    assert events_named(app_server, event_id) == []
    # Signed right but not an event (the shape is checked too).
    for junk in (b"", b"[]", b"not json", b'{"event": "X"}', json.dumps({"uuid": "u", "payload": []}).encode()):
        assert post(http, junk, signed(junk, key)).status_code == 401, junk
    assert _ledger(app_server, reward_id) == before
    assert new_tracebacks(app_server, log_start) == []


def test_a_body_over_64_kb_is_refused_with_the_body_readers_message(app_server, http, sent_reward, log_start):
    reward_id, before = sent_reward
    key = webhook_key(app_server)
    event_id = str(uuid.uuid4())
    body = json.loads(event_body(before[2], event_id))
    body["payload"]["meta"]["padding"] = "x" * MAX_BODY_BYTES
    raw = json.dumps(body).encode()
    assert len(raw) > MAX_BODY_BYTES
    r = post(http, raw, signed(raw, key))
    assert r.status_code == 400
    assert r.json()["errors"][0]["message"] == TOO_LARGE
    # The same without a Content-Length (chunked): read up to the limit only, then refused.
    r = http.post(
        PATH, content=iter([raw[:40000], raw[40000:]]), headers={"Content-Type": "application/json", **signed(raw, key)}
    )
    assert r.status_code == 400
    assert r.json()["errors"][0]["message"] == TOO_LARGE
    assert events_named(app_server, event_id) == []
    assert _ledger(app_server, reward_id) == before
    assert new_tracebacks(app_server, log_start) == []


def test_a_signed_event_for_an_unknown_reward_is_taken_and_changes_nothing(app_server, http, sent_reward, log_start):
    reward_id, before = sent_reward
    key = webhook_key(app_server)
    unknown = f"UNKNOWN-{uuid.uuid4().hex[:10]}"
    event_id = str(uuid.uuid4())
    body = event_body(unknown, event_id)
    r = post(http, body, signed(body, key))
    assert r.status_code == 200
    assert r.json() == {"received": True}
    assert events_named(app_server, event_id) == [("tremendous", "REWARDS.DELIVERY.SUCCEEDED", unknown)]
    with app_server.db() as db:
        assert db.exec(select(Reward).where(Reward.provider_reward_id == unknown)).all() == []
    assert _ledger(app_server, reward_id) == before
    assert new_tracebacks(app_server, log_start) == []


def test_the_same_event_twice_is_recorded_once(app_server, http, sent_reward, log_start):
    reward_id, before = sent_reward
    key = webhook_key(app_server)
    event_id = str(uuid.uuid4())
    # An event naming the sent reward: the portal reads the reward from the provider (the stand-in does not know
    # this one: the event is recorded, the reward stays as it is until the poll asks again).
    body = event_body(before[2], event_id)
    first = post(http, body, signed(body, key))
    again = post(http, body, signed(body, key))
    assert (first.status_code, again.status_code) == (200, 200)
    assert events_named(app_server, event_id) == [("tremendous", "REWARDS.DELIVERY.SUCCEEDED", before[2])]
    # The same event id with another body (a forged replay, correctly signed) is still one event.
    other = event_body(before[2], event_id, name="REWARDS.DELIVERY.FAILED")
    assert post(http, other, signed(other, key)).status_code == 200
    assert events_named(app_server, event_id) == [("tremendous", "REWARDS.DELIVERY.SUCCEEDED", before[2])]
    assert _ledger(app_server, reward_id) == before
    assert new_tracebacks(app_server, log_start) == []
