"""The Tremendous provider through the real SDK (tremendous-python) against Tremendous's local stand-in, served
alone on a loopback port (tests/support/payout_standin.py): idempotent orders, delivery, bounces and resends,
errors as the ledger sees them, and the signed webhooks the stand-in posts.

The provider and the stand-in keep nothing in the portal's database (the stand-in has its own SQLite file),
so these tests are the same on SQLite and PostgreSQL."""

from __future__ import annotations

import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest
from starlette.testclient import TestClient

from portal.services.providers.payouts import PayoutError
from portal.services.providers.payouts.statuses import DELIVERY_FAILED_REASON
from portal.services.providers.payouts.tremendous import CONFLICT, NOT_RESENDABLE, REFUSED_KEY, UNREACHABLE
from portal.settings import Settings
from portal.standins import tremendous as standin_module
from portal.standins.tremendous import LocalPayoutsRefused, Store, standalone_app
from portal.standins.tremendous.store import BOUNCED
from tests.support.payout_standin import PayoutStandin, WebhookReceiver
from tests.support.polling import polled

ADA = {"currency": "USD", "email": "ada@example.org", "name": "Ada Lovelace"}


@pytest.fixture
def receiver():
    server = WebhookReceiver().start()
    yield server
    server.stop()


@pytest.fixture
def standin(tmp_path, receiver):
    with PayoutStandin(tmp_path / "payouts.db", webhook_url=receiver.url) as server:
        yield server


def order(provider, external_id="REWARD-1", amount_cents=2500, **changes):
    return provider.order(external_id=external_id, amount_cents=amount_cents, **{**ADA, **changes})


def get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=5) as answer:
        return answer.read().decode()


def test_ordering_twice_with_one_external_id_makes_one_order(standin):
    provider = standin.provider()
    first = order(provider)
    again = order(provider)
    assert first == again
    assert (first.state, first.provider_status, first.reason) == ("sent", "SCHEDULED", "")
    assert standin.store.orders() == [(first.order_id, "REWARD-1")]


def test_another_amount_with_the_same_external_id_is_a_conflict(standin):
    provider = standin.provider()
    first = order(provider)
    with pytest.raises(PayoutError) as raised:
        order(provider, amount_cents=3000)
    assert raised.value.retryable is False and raised.value.message == CONFLICT
    with pytest.raises(PayoutError, match="already has an order"):
        order(provider, email="someone.else@example.org")
    assert standin.store.orders() == [(first.order_id, "REWARD-1")]


def test_a_delivered_reward_is_paid(standin, receiver):
    provider = standin.provider()
    ordered = order(provider)
    assert provider.reward(provider_reward_id=ordered.reward_id).state == "sent"
    standin.store.deliver(ordered.reward_id)
    now = provider.reward(provider_reward_id=ordered.reward_id)
    assert (now.state, now.provider_status, now.order_id, now.reward_id) == (
        "paid",
        "SUCCEEDED",
        ordered.order_id,
        ordered.reward_id,
    )
    [email] = standin.store.inbox()
    assert (email.recipient, email.outcome, email.reward_id) == ("ada@example.org", "delivered", ordered.reward_id)
    assert email.link == f"{standin.url}/local-payouts/rewards/{ordered.reward_id}"
    assert [e["event"] for e in receiver.events()] == ["REWARDS.DELIVERY.SUCCEEDED"]


def test_a_bounced_email_fails_with_its_reason_and_a_resend_to_a_corrected_one_succeeds(tmp_path, receiver):
    with PayoutStandin(tmp_path / "payouts.db", webhook_url=receiver.url, delivery_seconds=0) as standin:
        provider = standin.provider()
        ordered = order(provider, email="ada.bounce@example.org")
        with pytest.raises(PayoutError) as raised:  # only a failed delivery can be sent again
            provider.resend(provider_reward_id=ordered.reward_id, email="ada@example.org")
        assert raised.value.message == NOT_RESENDABLE and raised.value.retryable is False

        standin.store.tick()
        failed = provider.reward(provider_reward_id=ordered.reward_id)
        assert (failed.state, failed.provider_status, failed.reason) == ("failed", "FAILED", DELIVERY_FAILED_REASON)
        assert [(e.recipient, e.outcome) for e in standin.store.inbox()] == [("ada.bounce@example.org", BOUNCED)]

        resent = provider.resend(provider_reward_id=ordered.reward_id, email="ada@example.org")
        assert (resent.state, resent.provider_status, resent.reward_id) == ("sent", "SCHEDULED", ordered.reward_id)
        standin.store.tick()
        paid = provider.reward(provider_reward_id=ordered.reward_id)
        assert (paid.state, paid.reason) == ("paid", "")
        assert [(e.recipient, e.outcome) for e in standin.store.inbox()] == [
            ("ada@example.org", "delivered"),
            ("ada.bounce@example.org", BOUNCED),
        ]
        assert [e["event"] for e in receiver.events()] == ["REWARDS.DELIVERY.FAILED", "REWARDS.DELIVERY.SUCCEEDED"]
        assert standin.store.orders() == [(ordered.order_id, "REWARD-1")]


def test_find_gives_the_order_made_with_an_external_id(standin):
    provider = standin.provider()
    first = order(provider, external_id="REWARD-7")
    order(provider, external_id="REWARD-8")
    assert provider.find(external_id="REWARD-7") == first
    assert provider.find(external_id="REWARD-9") is None


def test_a_wrong_api_key_is_not_retryable(standin):
    provider = standin.provider(api_key="WRONG0KEY")
    for call in (lambda: order(provider), lambda: provider.find(external_id="REWARD-1")):
        with pytest.raises(PayoutError) as raised:
            call()
        assert raised.value.retryable is False and raised.value.message == REFUSED_KEY
    assert standin.store.orders() == []


def test_an_unknown_reward_is_not_retryable(standin):
    with pytest.raises(PayoutError) as raised:
        standin.provider().reward(provider_reward_id="NOSUCHREWARD")
    assert raised.value.retryable is False


def test_the_stand_in_down_is_retryable(tmp_path):
    standin = PayoutStandin(tmp_path / "payouts.db").start()
    provider = standin.provider(timeout=2)
    standin.stop()
    started = time.monotonic()
    with pytest.raises(PayoutError) as raised:
        order(provider)
    assert raised.value.retryable is True and raised.value.message == UNREACHABLE
    assert time.monotonic() - started < 2  # refused at once, not retried


def test_a_webhook_the_stand_in_sent_verifies_and_a_changed_one_does_not(standin, receiver):
    provider = standin.provider()
    ordered = order(provider)
    standin.store.deliver(ordered.reward_id, succeeded=False)
    [(headers, body)] = receiver.received
    event = provider.webhook_event(body=body, headers=headers)
    assert event is not None
    assert (event.name, event.resource_id, event.resource_type) == (
        "REWARDS.DELIVERY.FAILED",
        ordered.reward_id,
        "rewards",
    )
    assert event.created.utcoffset() is not None and abs(time.time() - event.created.timestamp()) < 60
    assert provider.webhook_event(body=body.replace(b"FAILED", b"SUCCEEDED"), headers=headers) is None
    assert standin.provider(webhook_key="another-key").webhook_event(body=body, headers=headers) is None


def test_fifty_identical_orders_at_once_make_one_order(standin):
    provider = standin.provider(timeout=30)
    barrier = threading.Barrier(50)

    def one(_: int):
        barrier.wait()
        return order(provider, external_id="REWARD-50")

    with ThreadPoolExecutor(50) as pool:
        answers = list(pool.map(one, range(50)))
    assert len({(a.order_id, a.reward_id) for a in answers}) == 1
    assert standin.store.orders() == [(answers[0].order_id, "REWARD-50")]


def test_the_background_loop_delivers_after_the_delay_and_posts_the_webhook(tmp_path, receiver):
    with PayoutStandin(tmp_path / "payouts.db", webhook_url=receiver.url, delivery_seconds=0.5, loop=True) as standin:
        provider = standin.provider()
        ordered = order(provider)
        events = polled(receiver.events, bool, timeout=10)
        assert [(e["event"], e["payload"]["resource"]["id"]) for e in events] == [
            ("REWARDS.DELIVERY.SUCCEEDED", ordered.reward_id)
        ]
        assert provider.reward(provider_reward_id=ordered.reward_id).state == "paid"
        # The store marks the webhook delivered once the receiver has answered: a moment after it was received.
        assert polled(standin.store.pending_webhooks, lambda pending: pending == [], timeout=10) == []


def test_a_lost_webhook_is_never_sent(standin, receiver):
    ordered = order(standin.provider())
    standin.store.deliver(ordered.reward_id, send_webhook=False)
    assert standin.store.send_due_webhooks() == []
    assert receiver.received == [] and standin.store.pending_webhooks() == []
    assert standin.provider().reward(provider_reward_id=ordered.reward_id).state == "paid"


def test_a_webhook_the_portal_refuses_is_tried_again_later(standin, receiver):
    ordered = order(standin.provider())
    receiver.status = 500
    standin.store.deliver(ordered.reward_id)
    [pending] = standin.store.pending_webhooks()
    assert (pending.attempts, pending.last_answer, pending.resource_id) == (1, "500", ordered.reward_id)
    assert standin.store.send_due_webhooks() == []  # not due yet: it waits before the next attempt
    receiver.status = 200
    assert standin.store.send_due_webhooks(now=time.time() + 3) == [200]
    assert standin.store.pending_webhooks() == []
    assert [e["uuid"] for e in receiver.events()] == [pending.uuid, pending.uuid]


def test_several_workers_deliver_and_send_each_webhook_once(tmp_path, receiver):
    with PayoutStandin(tmp_path / "payouts.db", webhook_url=receiver.url, delivery_seconds=0) as standin:
        provider = standin.provider()
        rewards = [order(provider, external_id=f"REWARD-{i}").reward_id for i in range(5)]
        workers = [Store(standin.store.config) for _ in range(8)]  # as many backend workers on one file
        barrier = threading.Barrier(len(workers))

        def run(worker: Store) -> None:
            barrier.wait()
            worker.tick()

        with ThreadPoolExecutor(len(workers)) as pool:
            list(pool.map(run, workers))
        assert sorted(e["payload"]["resource"]["id"] for e in receiver.events()) == sorted(rewards)
        assert sorted(e.reward_id for e in standin.store.inbox()) == sorted(rewards)


def test_the_inbox_and_the_reward_page_where_the_recipient_chooses(standin):
    ordered = order(standin.provider())
    assert "No reward e-mail was sent yet." in get(f"{standin.url}/local-payouts/inbox")
    standin.store.deliver(ordered.reward_id)
    inbox = get(f"{standin.url}/local-payouts/inbox")
    assert "ada@example.org" in inbox and f"/local-payouts/rewards/{ordered.reward_id}" in inbox
    assert "This is not Tremendous." in inbox

    page_url = f"{standin.url}/local-payouts/rewards/{ordered.reward_id}"
    page = get(page_url)
    assert "Your reward: 25.00 USD" in page
    for label in ("A gift card", "A prepaid VISA card", "PayPal", "A donation to a charity"):
        assert label in page
    form = urllib.parse.urlencode({"choice": "paypal"}).encode()
    with urllib.request.urlopen(urllib.request.Request(page_url, data=form, method="POST"), timeout=5) as answer:
        chosen = answer.read().decode()  # after the redirect to the page itself
    assert "You chose: <strong>PayPal</strong>" in chosen
    assert "You chose: <strong>PayPal</strong>" in get(page_url)
    with pytest.raises(urllib.error.HTTPError) as refused:  # chosen once
        urllib.request.urlopen(
            urllib.request.Request(page_url, data=urllib.parse.urlencode({"choice": "visa"}).encode()), timeout=5
        )
    assert refused.value.code == 400 and "You chose: <strong>PayPal</strong>" in refused.value.read().decode()


def test_the_stand_in_answers_this_machine_only(standin):
    client = TestClient(standalone_app(standin.store))  # its client address is not a loopback one
    assert client.get("/local-payouts/inbox").status_code == 403
    assert client.get("/local-payouts/api/v2/campaigns").status_code == 403


def test_the_stand_in_is_not_built_where_it_may_not_run(monkeypatch):
    monkeypatch.setenv("SECRET_KEY", "integration")
    monkeypatch.delenv("TREMENDOUS_API_KEY", raising=False)
    monkeypatch.setenv("BASE_URL", "https://portal.example.com")
    with pytest.raises(LocalPayoutsRefused):
        standin_module.router(Settings())
    monkeypatch.setenv("BASE_URL", "http://localhost:3000")
    monkeypatch.setenv("PAYOUT_PROVIDER", "manual")
    with pytest.raises(LocalPayoutsRefused):
        standin_module.router(Settings())
    monkeypatch.setenv("PAYOUT_PROVIDER", "auto")
    monkeypatch.setenv("TREMENDOUS_API_KEY", "REAL0KEY")
    monkeypatch.setenv("TREMENDOUS_CAMPAIGN_ID", "CAMPAIGN00001")
    with pytest.raises(LocalPayoutsRefused):
        standin_module.router(Settings())


def test_no_file_is_made_before_the_first_order(tmp_path, receiver):
    with PayoutStandin(tmp_path / "payouts.db", webhook_url=receiver.url, delivery_seconds=0) as standin:
        standin.store.tick()  # a round of the loop every worker runs
        assert not (tmp_path / "payouts.db").exists()
        order(standin.provider())
        assert (tmp_path / "payouts.db").exists()
        standin.store.tick()
        assert [e.recipient for e in standin.store.inbox()] == ["ada@example.org"]
