"""Signed webhooks (issue 39, item 4) on SQLite and PostgreSQL, end to end through a real receiver on loopback
(tests/support/webhook_receiver.py) that verifies each request with the `standardwebhooks` package.

- A key subscribes through the API (the secret is shown once); a real change (a staff decision, a submission, a
  report, a payout) writes one delivery per subscription that wants the event, in the change's transaction.
- A receiver down for an hour (the sender runs at moved clock times, every attempt fails), then a restart of the
  portal (the sender runs in a new process on a new connection), then the receiver is back: every event arrives,
  once per event id.
- Two senders at once deliver each row once; a revoked key's subscriptions get nothing new; a replay from the staff
  log sends the same event id again; the log is refused to participants and team managers.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlmodel import Session

from portal.db import make_engine
from portal.domain import webhooks as rules
from portal.domain.staff import roles
from portal.models import AuditEntry, Review, WebhookDelivery, WebhookSubscription
from portal.models._base import utcnow
from portal.services import payouts, problem_reports, webhook_sender, webhooks
from portal.services.admin import api_keys, rewards
from portal.services.admin import reviews as admin_reviews
from portal.services.admin import webhooks as admin_webhooks
from portal.services.admin.guard import StaffRefused
from portal.services.definition_import import import_test
from portal.services.errors import ServiceError
from portal.services.taking import review_sessions as rs
from portal.settings import settings
from tests.integration.test_admin_services import a_review, a_test
from tests.integration.test_admin_services import person as staff_person
from tests.support.api import api_client, api_key, key_id
from tests.support.demo_survey import good_answers
from tests.support.factories import make_participant
from tests.support.people import caller
from tests.support.webhook_receiver import WebhookReceiver

ROOT = Path(__file__).resolve().parents[2]
DEMO = json.loads((ROOT / "portal/data/demo_tests/01-survey.json").read_text())
SA, TO, TM = roles.SUPER_ADMIN, roles.TEAM_OWNER, roles.TEAM_MANAGER
Factory = Callable[[], AbstractContextManager[Session]]


def scope_of(db_url: str) -> tuple[Factory, Callable[[], None]]:
    """A session factory like portal.db.session_scope on a new engine of the test's database, and its disposal."""
    engine = make_engine(db_url)

    @contextmanager
    def scope() -> Iterator[Session]:
        with Session(engine, expire_on_commit=False) as s:
            try:
                yield s
                s.commit()
            except BaseException:
                s.rollback()
                raise

    return scope, engine.dispose


@pytest.fixture
def receiver() -> Iterator[WebhookReceiver]:
    with WebhookReceiver() as r:
        yield r


def subscribe(session: Session, monkeypatch: pytest.MonkeyPatch, url: str, events: list[str], key: str | None = None):
    """A key (new unless given) subscribes `url` through the API; (key, the 201 answer's body)."""
    key = key or api_key(session, "webhooks:write")
    with api_client(session, monkeypatch, key) as client:
        answer = client.post("webhooks/subscriptions", json={"url": url, "events": events})
    assert answer.status_code == 201, answer.json()
    return key, answer.json()


def deliveries(session: Session, *where: Any) -> list[WebhookDelivery]:
    session.expire_all()
    return list(session.scalars(select(WebhookDelivery).where(*where).order_by(WebhookDelivery.id)).all())


def submitted_reviews(session: Session, n: int) -> list[int]:
    test = a_test(session)
    return [a_review(session, test, staff_person(session))[0].id for _ in range(n)]


def approve(session: Session, review_ids: list[int]) -> int:
    staff = caller(session, SA).account_id
    done = admin_reviews.decide(session, actor_id=staff, review_ids=review_ids, approve=True)
    session.commit()
    return done


# --- the API -----------------------------------------------------------------------------------------------------


def test_a_key_subscribes_lists_and_removes_its_own_subscriptions_and_sees_the_secret_once(session, monkeypatch):
    key, made = subscribe(session, monkeypatch, "http://127.0.0.1:9/hooks", ["review.decided", "review.submitted"])
    assert made["secret"].startswith("whsec_")
    assert made["events"] == ["review.submitted", "review.decided"]  # in the events' own order
    other_key, other = subscribe(session, monkeypatch, "http://127.0.0.1:9/other", ["test.full"])
    stored = session.get(WebhookSubscription, made["id"])
    assert made["secret"] not in stored.secret  # kept sealed
    assert webhooks.unseal(stored.secret) == made["secret"]
    with api_client(session, monkeypatch, key) as client:
        listed = client.get("webhooks/subscriptions").json()["data"]
        assert [s["id"] for s in listed] == [made["id"]]  # only this key's own
        assert "secret" not in listed[0] and made["secret"] not in json.dumps(listed)
        events = client.get("webhooks/events").json()["data"]
        assert [e["name"] for e in events] == list(rules.EVENTS)
        refused = client.delete(f"webhooks/subscriptions/{other['id']}")  # another key's subscription
        assert refused.status_code == 404, refused.json()
        assert refused.json() == {"errors": [{"field": None, "message": rules.SUBSCRIPTION_NOT_FOUND}]}
        assert client.delete(f"webhooks/subscriptions/{made['id']}").status_code == 204
        assert client.delete(f"webhooks/subscriptions/{made['id']}").status_code == 404  # once
        assert client.get("webhooks/subscriptions").json()["data"] == []
    session.expire_all()
    assert session.get(WebhookSubscription, other["id"]).disabled_at is None
    actions = session.scalars(
        select(AuditEntry.action).where(AuditEntry.api_key_id == key_id(session, key)).order_by(AuditEntry.id)
    ).all()
    assert actions == ["webhook.subscribe", "webhook.unsubscribe"]
    assert other_key != key


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({"url": "ftp://example.com/x", "events": ["test.full"]}, "url", rules.URL_INVALID),
        ({"url": "https://10.0.0.1/x", "events": ["test.full"]}, "url", rules.URL_PRIVATE),
        ({"url": "https://u:p@example.com/x", "events": ["test.full"]}, "url", rules.URL_CREDENTIALS),
        ({"url": "https://example.com/x", "events": ["review.deleted"]}, "events.0", None),
        ({"url": "https://example.com/x", "events": []}, "events", None),
        ({"events": ["test.full"]}, "url", None),
    ],
)
def test_bad_subscriptions_are_refused_with_the_error_shape(session, monkeypatch, body, field, message):
    key = api_key(session, "webhooks:write")
    with api_client(session, monkeypatch, key) as client:
        answer = client.post("webhooks/subscriptions", json=body)
    assert answer.status_code == 422, answer.json()
    errors = answer.json()["errors"]
    assert errors[0]["field"] == field
    if message:
        assert errors[0]["message"] == message
    assert session.scalar(select(func.count()).select_from(WebhookSubscription)) == 0


def test_a_key_without_the_webhooks_scope_is_refused(session, monkeypatch):
    key = api_key(session, "reviews:read")
    with api_client(session, monkeypatch, key) as client:
        for method, path in [
            ("GET", "webhooks/events"),
            ("GET", "webhooks/subscriptions"),
            ("POST", "webhooks/subscriptions"),
            ("DELETE", "webhooks/subscriptions/1"),
        ]:
            kwargs = {"json": {"url": "https://example.com/x", "events": ["test.full"]}} if method == "POST" else {}
            answer = client.request(method, path, **kwargs)
            assert answer.status_code == 403, (method, path, answer.json())
    # and a person's session is not a key: the service refuses any caller but a key with the scope
    with pytest.raises(StaffRefused):
        webhooks.subscribe(session, actor_id=caller(session, SA).account_id, url="https://example.com", events=["x"])


# --- events from the portal's changes -----------------------------------------------------------------------------


def test_a_staff_decision_queues_one_delivery_per_subscription_and_the_receiver_verifies_it(
    db_url, session, monkeypatch, receiver
):
    _, first = subscribe(session, monkeypatch, receiver.url, ["review.decided"])
    _, second = subscribe(session, monkeypatch, receiver.url, ["review.decided", "reward.paid"])
    subscribe(session, monkeypatch, receiver.url, ["review.submitted"])  # wants another event: gets nothing
    receiver.secret, receiver.secret = first["secret"], second["secret"]
    [review_id] = submitted_reviews(session, 1)
    assert deliveries(session) == []
    assert approve(session, [review_id]) == 1
    queued = deliveries(session)
    assert sorted(d.subscription_id for d in queued) == [first["id"], second["id"]]
    assert {d.event_id for d in queued} == {queued[0].event_id}  # one event, one id for every subscription
    assert queued[0].payload["type"] == "review.decided"
    data = queued[0].payload["data"]
    assert (data["review_id"], data["status"]) == (review_id, "approved")
    assert "email" not in json.dumps(queued[0].payload)
    with pytest.raises(ServiceError):  # decided already: nothing moves, nothing more is queued
        approve(session, [review_id])
    session.rollback()
    assert len(deliveries(session)) == 2

    scope, dispose = scope_of(db_url)
    try:
        assert webhook_sender.deliver_due(session_factory=scope) == 2
    finally:
        dispose()
    assert receiver.arrivals == {queued[0].event_id: 2}  # verified with each subscription's own secret
    assert receiver.refused == []
    [event] = receiver.events.values()
    assert event["type"] == "review.decided" and event["data"]["review_id"] == review_id
    done = deliveries(session)
    assert all(d.delivered_at is not None and d.attempts == 1 and d.last_status == 204 for d in done)


def test_submissions_report_review_submitted_once_and_test_full_when_the_last_place_is_taken(session, monkeypatch):
    subscribe(session, monkeypatch, "http://127.0.0.1:9/hooks", ["review.submitted", "test.full"])
    test = import_test(session, DEMO)
    test.participant_limit = 2
    session.add(test)
    session.commit()
    t0 = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)
    first, second = make_participant(session), make_participant(session)
    for who in (first, second):
        rs.start_session(session=session, test_id=test.id, account_id=who.id, now=t0)
        session.commit()
    for who, again in ((first, False), (first, True), (second, False)):
        result = rs.submit_review(
            session=session,
            test_id=test.id,
            account_id=who.id,
            answers=good_answers(),
            worker_data={},
            submission_id=f"sub-{who.id}",
            now=t0,
        )
        session.commit()
        assert result.created is not again
    types = [d.event_type for d in deliveries(session)]
    assert types == ["review.submitted", "review.submitted", "test.full"]
    submitted = [d.payload["data"] for d in deliveries(session, WebhookDelivery.event_type == "review.submitted")]
    assert [d["participant_id"] for d in submitted] == [first.id, second.id]
    full = deliveries(session, WebhookDelivery.event_type == "test.full")[0].payload["data"]
    assert full == {"test_id": test.id, "participant_limit": 2, "reviews": 2, "status": test.status}


def test_rewards_paid_or_failed_and_problem_reports_are_reported(session, monkeypatch):
    subscribe(session, monkeypatch, "http://127.0.0.1:9/hooks", ["reward.paid", "reward.failed", "problem.reported"])
    test = a_test(session)
    _, payable = a_review(session, test, staff_person(session), status="approved", approved=True)
    _, failing = a_review(session, test, staff_person(session), status="approved", approved=True)
    staff = caller(session, SA).account_id
    assert rewards.mark(session, actor_id=staff, reward_ids=[payable.id], status="EXECUTED") == 1
    assert rewards.mark(session, actor_id=staff, reward_ids=[failing.id], status="FAILED") == 1
    session.commit()
    with pytest.raises(ServiceError):  # already paid: nothing moves, nothing is reported
        rewards.mark(session, actor_id=staff, reward_ids=[payable.id], status="EXECUTED")
    session.rollback()
    found = [(d.event_type, d.payload["data"]["reward_id"], d.payload["data"]["status"]) for d in deliveries(session)]
    assert found == [("reward.paid", payable.id, "EXECUTED"), ("reward.failed", failing.id, "FAILED")]

    # A problem report, by a participant taking a test.
    survey = import_test(session, DEMO)
    who = make_participant(session)
    from portal.services.sessions import create_session

    token = create_session(session=session, account_id=who.id)
    rs.start_session(session=session, test_id=survey.id, account_id=who.id, now=utcnow())
    session.commit()
    problem_reports.report(session, token=token, test_id=survey.id, category="page", text="The page is blank.")
    session.commit()
    [reported] = deliveries(session, WebhookDelivery.event_type == "problem.reported")
    assert reported.payload["data"]["test_id"] == survey.id
    assert reported.payload["data"]["category"] == "page"
    assert "blank" not in json.dumps(reported.payload)  # the participant's words stay in the portal


def test_the_payout_providers_reports_of_paid_and_failed_rewards_are_reported_once(session, monkeypatch):
    subscribe(session, monkeypatch, "http://127.0.0.1:9/hooks", ["reward.paid", "reward.failed"])
    test = a_test(session)
    _, paid = a_review(session, test, staff_person(session), status="approved", approved=True)
    _, failed = a_review(session, test, staff_person(session), status="approved", approved=True)
    for reward in (paid, failed):
        reward.payout = "sent"
        session.add(reward)
    session.commit()
    for _ in range(2):  # the provider's webhook and the poll both report it: one event
        payouts.delivered(session, reward_id=paid.id, state="paid", provider_status="SUCCEEDED")
        payouts.delivered(session, reward_id=failed.id, state="failed", provider_status="FAILED", reason="Bad e-mail")
        session.commit()
    found = [(d.event_type, d.payload["data"]["reward_id"]) for d in deliveries(session)]
    assert found == [("reward.paid", paid.id), ("reward.failed", failed.id)]
    assert deliveries(session)[1].payload["data"]["reason"] == "Bad e-mail"


# --- delivery: outages, restarts, concurrency ----------------------------------------------------------------------


def run_sender_in_a_new_process(db_url: str, at: datetime) -> int:
    """The portal restarted: a new process (new engine, new connections) runs one sender round at `at`."""
    code = (
        "import sys; from datetime import datetime; from portal.services import webhook_sender; "
        "print(webhook_sender.deliver_due(now=datetime.fromisoformat(sys.argv[1])))"
    )
    env = {**os.environ, "DATABASE_URL": db_url, "SECRET_KEY": settings.secret_key, "SENTRY_DSN": ""}
    done = subprocess.run(
        [sys.executable, "-c", code, at.isoformat()], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return int(done.stdout.strip().splitlines()[-1])


def test_a_receiver_down_for_an_hour_gets_every_event_once_after_a_restart(db_url, session, monkeypatch, receiver):
    _, made = subscribe(session, monkeypatch, receiver.url, ["review.decided"])
    receiver.secret = made["secret"]
    approve(session, submitted_reviews(session, 3))
    event_ids = {d.event_id for d in deliveries(session)}
    assert len(event_ids) == 3
    t0 = max(d.next_attempt_at for d in deliveries(session)).astimezone(UTC)

    # The first half hour the receiver answers 503; then it is gone (connections refused). The sender runs every
    # minute of the hour, at the moved clock: each due attempt fails.
    scope, dispose = scope_of(db_url)
    receiver.down()
    port = receiver.port
    try:
        for minute in range(61):
            if minute == 30:
                receiver.stop()
            assert webhook_sender.deliver_due(now=t0 + timedelta(minutes=minute, seconds=6), session_factory=scope) == 0
    finally:
        dispose()
    assert receiver.posts == 3 * 3  # at once, +5 s, +5 min: answered 503; +35 min: refused
    assert receiver.events == {}
    waiting = deliveries(session)
    assert [d.attempts for d in waiting] == [4, 4, 4]
    assert all(d.delivered_at is None and d.given_up_at is None for d in waiting)
    assert all("503" in str(d.last_status) or d.last_status is None for d in waiting)
    assert all(d.last_error for d in waiting)
    next_at = {d.next_attempt_at.astimezone(UTC) for d in waiting}
    assert min(next_at) > t0 + timedelta(hours=2)  # the 5th attempt: 2 h after the 4th

    # The portal restarts (a new process); the receiver is back on its address.
    with WebhookReceiver(port=port) as back:
        back.secret = made["secret"]
        assert run_sender_in_a_new_process(db_url, t0 + timedelta(hours=1, minutes=30)) == 0  # not due yet
        assert back.posts == 0
        assert run_sender_in_a_new_process(db_url, t0 + timedelta(hours=2, minutes=40)) == 3
        assert run_sender_in_a_new_process(db_url, t0 + timedelta(hours=50)) == 0  # nothing is sent twice
        assert back.ids() == event_ids
        assert back.arrivals == {event_id: 1 for event_id in event_ids}
        assert back.posts == 3 and back.refused == []
    done = deliveries(session)
    assert all(d.delivered_at is not None and d.attempts == 5 and d.last_error is None for d in done)


def test_a_delivery_is_given_up_when_the_schedule_is_spent(db_url, session, monkeypatch, receiver):
    _, made = subscribe(session, monkeypatch, receiver.url, ["review.decided"])
    receiver.secret = made["secret"]
    receiver.down()
    approve(session, submitted_reviews(session, 1))
    [row] = deliveries(session)
    at = row.next_attempt_at.astimezone(UTC)
    scope, dispose = scope_of(db_url)
    try:
        for attempt in range(rules.MAX_ATTEMPTS):
            at += rules.SCHEDULE[attempt] + timedelta(seconds=1)
            webhook_sender.deliver_due(now=at, session_factory=scope)
        [row] = deliveries(session)
        assert (row.attempts, row.last_status) == (rules.MAX_ATTEMPTS, 503)
        assert row.given_up_at is not None
        assert row.given_up_at.astimezone(UTC) - row.created_at.astimezone(UTC) > timedelta(hours=24)
        receiver.up()
        assert webhook_sender.deliver_due(now=at + timedelta(days=10), session_factory=scope) == 0  # given up
    finally:
        dispose()
    assert receiver.posts == rules.MAX_ATTEMPTS and receiver.events == {}


def test_a_row_another_worker_claimed_after_it_was_read_is_not_claimed_again(db_url, session, monkeypatch):
    subscribe(session, monkeypatch, "http://127.0.0.1:9/hooks", ["review.decided"])
    approve(session, submitted_reviews(session, 3))
    now = utcnow()
    first, dispose_first = scope_of(db_url)
    second, dispose_second = scope_of(db_url)
    try:
        with first() as a, second() as b:
            read_by_a = webhook_sender.due_candidates(a, now=now)
            read_by_b = webhook_sender.due_candidates(b, now=now)
            assert [c[0] for c in read_by_a] == [c[0] for c in read_by_b] and len(read_by_a) == 3  # both saw all
            won = webhook_sender.take(b, read_by_b[:2], now=now)
            b.commit()
            lost = webhook_sender.take(a, read_by_a, now=now)  # two of them B holds now: only the third is A's
        assert [c.id for c in won] == [c[0] for c in read_by_b[:2]]
        assert [c.id for c in lost] == [read_by_a[2][0]]
    finally:
        dispose_first()
        dispose_second()


def test_two_senders_at_once_deliver_each_row_once(db_url, session, monkeypatch, receiver):
    _, made = subscribe(session, monkeypatch, receiver.url, ["review.decided"])
    _, also = subscribe(session, monkeypatch, receiver.url, ["review.decided"])
    receiver.secret, receiver.secret = made["secret"], also["secret"]
    approve(session, submitted_reviews(session, 15))
    assert len(deliveries(session)) == 30
    start = threading.Barrier(2)
    counted: list[int] = []
    failures: list[BaseException] = []

    def sender() -> None:
        scope, dispose = scope_of(db_url)  # each worker its own engine, as each process has
        try:
            start.wait()
            total = 0
            while sent := webhook_sender.deliver_due(session_factory=scope, limit=4):
                total += sent
            counted.append(total)
        except BaseException as err:  # pragma: no cover - reported below
            failures.append(err)
        finally:
            dispose()

    threads = [threading.Thread(target=sender) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert failures == []
    assert sum(counted) == 30
    assert receiver.posts == 30  # every row POSTed once: none twice, none missed
    assert set(receiver.arrivals.values()) == {2}  # each event once per subscription
    assert len(receiver.arrivals) == 15
    assert all(d.delivered_at is not None and d.attempts == 1 for d in deliveries(session))


def test_a_revoked_keys_subscriptions_get_no_new_deliveries(db_url, session, monkeypatch, receiver):
    kept_key, kept = subscribe(session, monkeypatch, receiver.url, ["review.decided"])
    gone_key, gone = subscribe(session, monkeypatch, receiver.url, ["review.decided"])
    receiver.secret, receiver.secret = kept["secret"], gone["secret"]
    first, later = submitted_reviews(session, 2)
    approve(session, [first])  # queued for both, before the revocation
    creator = session.scalar(select(AuditEntry.actor_id).where(AuditEntry.action == "api-key.create"))
    api_keys.revoke_key(session, actor_id=creator, key_id=key_id(session, gone_key))
    session.commit()
    approve(session, [later])
    assert [d.subscription_id for d in deliveries(session)] == [kept["id"], gone["id"], kept["id"]]
    scope, dispose = scope_of(db_url)
    try:
        assert webhook_sender.deliver_due(session_factory=scope) == 2
    finally:
        dispose()
    assert receiver.posts == 2  # nothing went to the revoked key's subscription
    [stopped] = deliveries(session, WebhookDelivery.subscription_id == gone["id"])
    assert stopped.given_up_at is not None and stopped.last_error == rules.SUBSCRIPTION_GONE
    assert kept_key != gone_key


# --- the staff log ---------------------------------------------------------------------------------------------------


def test_replay_from_the_staff_log_sends_the_same_event_id_again(db_url, session, monkeypatch, receiver):
    _, made = subscribe(session, monkeypatch, receiver.url, ["review.decided"])
    receiver.secret = made["secret"]
    approve(session, submitted_reviews(session, 1))
    scope, dispose = scope_of(db_url)
    try:
        assert webhook_sender.deliver_due(session_factory=scope) == 1
        [row] = deliveries(session)
        owner = staff_person(session, role=TO).id
        query = admin_webhooks.clean_query(filters=[{"name": "status", "type": "list", "values": ["delivered"]}])
        listed = admin_webhooks.list_deliveries(session, actor_id=owner, query=query)
        assert listed.total == 1
        shown = listed.rows[0]
        assert (shown["event_id"], shown["status"], shown["attempts"], shown["url"]) == (
            row.event_id,
            rules.DELIVERED,
            "1",
            receiver.url,
        )
        admin_webhooks.replay(session, actor_id=owner, delivery_id=str(row.id))
        session.commit()
        assert webhook_sender.deliver_due(session_factory=scope) == 1
    finally:
        dispose()
    assert receiver.arrivals == {row.event_id: 2}  # the same id twice: the receiver handled it once
    assert len(receiver.events) == 1
    [again] = deliveries(session)
    assert (again.event_id, again.attempts, again.delivered_at is not None) == (row.event_id, 2, True)
    audit = session.scalars(select(AuditEntry).where(AuditEntry.action == "webhook.replay")).all()
    assert [(a.target_id, a.actor_id) for a in audit] == [(str(row.id), owner)]


def test_the_log_and_replay_are_refused_to_participants_and_team_managers(session, monkeypatch):
    subscribe(session, monkeypatch, "http://127.0.0.1:9/hooks", ["review.decided"])
    approve(session, submitted_reviews(session, 1))
    [row] = deliveries(session)
    query = admin_webhooks.clean_query()
    for who in (staff_person(session).id, staff_person(session, role=TM).id, None, "1"):
        with pytest.raises(StaffRefused):
            admin_webhooks.list_deliveries(session, actor_id=who, query=query)
        with pytest.raises(StaffRefused):
            admin_webhooks.replay(session, actor_id=who, delivery_id=row.id)
    for role in (SA, TO):
        allowed = staff_person(session, role=role).id
        assert admin_webhooks.list_deliveries(session, actor_id=allowed, query=query).total == 1
    assert session.scalar(select(func.count()).where(AuditEntry.action == "webhook.replay")) == 0
    assert session.get(Review, row.payload["data"]["review_id"]) is not None


def test_a_delivery_being_sent_is_not_replayed_under_the_sender(session, monkeypatch):
    subscribe(session, monkeypatch, "http://127.0.0.1:9/hooks", ["review.decided"])
    approve(session, submitted_reviews(session, 1))
    now = utcnow()
    [claimed] = webhook_sender.claim_due(session, now=now)
    session.commit()
    owner = staff_person(session, role=SA).id
    with pytest.raises(ServiceError, match="being sent"):
        admin_webhooks.replay(session, actor_id=owner, delivery_id=claimed.id, now=now)
    session.rollback()
    assert admin_webhooks.list_deliveries(session, actor_id=owner, query=admin_webhooks.clean_query()).rows[0][
        "status_label"
    ] == ("Sending")
    with pytest.raises(ServiceError, match="not in the log"):
        admin_webhooks.replay(session, actor_id=owner, delivery_id="999999", now=now)


def test_rows_a_stopped_sender_held_go_to_another_once_their_lease_runs_out(db_url, session, monkeypatch, receiver):
    _, made = subscribe(session, monkeypatch, receiver.url, ["review.decided"])
    receiver.secret = made["secret"]
    approve(session, submitted_reviews(session, 2))
    now = utcnow()
    held = webhook_sender.claim_due(session, now=now)  # a worker claimed them, then its process ended
    session.commit()
    assert len(held) == 2
    scope, dispose = scope_of(db_url)
    try:
        assert webhook_sender.deliver_due(now=now + timedelta(seconds=30), session_factory=scope) == 0
        assert receiver.posts == 0  # leased: nobody else sends them meanwhile
        assert webhook_sender.deliver_due(now=now + rules.LEASE + timedelta(seconds=1), session_factory=scope) == 2
    finally:
        dispose()
    assert receiver.arrivals == {row.event_id: 1 for row in held}
    # The stopped worker's late record (its lease is gone) changes nothing.
    assert not webhook_sender.record(session, held[0], webhook_sender.Outcome(500, "late"), now=now)
    assert all(d.delivered_at is not None and d.attempts == 1 for d in deliveries(session))


def test_a_host_that_resolves_into_the_portal_s_own_network_gets_nothing(session, db_url, monkeypatch, receiver):
    """A name checked when it was subscribed may be pointed at a private address later: the sender resolves it again
    before each POST, and away from a local run refuses a private address (one failed attempt, nothing sent)."""
    key, made = subscribe(session, monkeypatch, receiver.url, ["review.decided"])
    receiver.secret = made["secret"]
    stored = session.get(WebhookSubscription, made["id"])
    stored.url = receiver.url.replace("127.0.0.1", "localhost")  # a name that resolves to this machine
    session.commit()
    assert approve(session, submitted_reviews(session, 1)) == 1
    deployed = dataclasses.replace(settings, base_url="https://portal.example.com")  # not a local run
    monkeypatch.setattr(webhooks, "settings", deployed)
    scope, dispose = scope_of(db_url)
    try:
        assert webhook_sender.deliver_due(session_factory=scope) == 0
    finally:
        dispose()
    assert receiver.posts == 0
    [row] = deliveries(session)
    assert row.delivered_at is None and row.attempts == 1 and row.last_error == rules.RESOLVED_PRIVATE
