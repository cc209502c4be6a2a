"""100 identical POSTs at once give one effect and one answer (issue 39), on SQLite and PostgreSQL.

The portal's app is served by a real uvicorn on loopback (in a thread of this process, its transactions on the test's
database); 100 threads, each with a connection of its own, are released together by a barrier and send the same
request with the same Idempotency-Key. Exactly one decision (or bonus) is made, with one audit row under the key,
and every caller gets the same status and body; the 99 others are told `Idempotent-Replayed: true`. The same key
with another request is refused with KEY_REUSED."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest
import uvicorn
from sqlalchemy import func, select
from sqlmodel import Session

from portal import db
from portal.api import rate_limit
from portal.api.app import PREFIX
from portal.domain import bonuses
from portal.models import AuditEntry, IdempotentRequest, Review, Reward
from portal.services.api.idempotency import KEY_REUSED
from tests.integration.test_admin_services import a_review, a_test, fresh, person
from tests.support.api import api_client, api_key, key_id
from tests.support.polling import polled

N = 100


@contextmanager
def served(session: Session, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The portal's app on a free loopback port, its transactions on the test's database: the base URL of /api/v1."""
    from portal.http.app import build_api

    monkeypatch.setattr(db, "engine", lambda: session.get_bind())
    monkeypatch.setattr(rate_limit, "_window", rate_limit.Window())
    server = uvicorn.Server(
        uvicorn.Config(build_api(), host="127.0.0.1", port=0, lifespan="off", log_level="warning", access_log=False)
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        assert polled(lambda: server.started, bool, timeout=20), "uvicorn did not start"
        port = server.servers[0].sockets[0].getsockname()[1]
        yield f"http://127.0.0.1:{port}{PREFIX}"
    finally:
        server.should_exit = True
        thread.join(20)


def all_at_once(base: str, key: str, path: str, *, idempotency_key: str, json: Any = None) -> list[httpx.Response]:
    """N identical POSTs from N threads (a connection each) released together; their answers."""
    barrier = threading.Barrier(N)
    answers: list[Any] = [None] * N
    headers = {"Authorization": f"Bearer {key}", "Idempotency-Key": idempotency_key}

    def send(n: int) -> None:
        with httpx.Client(base_url=base, headers=headers, timeout=120) as client:
            barrier.wait(timeout=60)
            try:
                answers[n] = client.post(path, json=json)
            except httpx.HTTPError as err:  # handed back to the test
                answers[n] = err

    threads = [threading.Thread(target=send, args=(n,)) for n in range(N)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(180)
    assert not any(thread.is_alive() for thread in threads), "a request did not finish"
    failed = [a for a in answers if not isinstance(a, httpx.Response)]
    assert not failed, failed[:3]
    return answers


def one_answer(answers: list[httpx.Response]) -> tuple[int, Any]:
    """Every answer has the same status and body (which it returns); one was the first, the others replays."""
    shapes = Counter((a.status_code, a.text) for a in answers)
    assert len(shapes) == 1, shapes.most_common(3)
    replayed = Counter(a.headers.get("Idempotent-Replayed") for a in answers)
    assert replayed == {None: 1, "true": N - 1}, replayed
    return answers[0].status_code, answers[0].json()


def audit_of(session: Session, action: str) -> list[AuditEntry]:
    session.expire_all()
    return list(session.execute(select(AuditEntry).where(AuditEntry.action == action)).scalars())


def kept_count(session: Session) -> int:
    return session.execute(select(func.count()).select_from(IdempotentRequest)).scalar_one()


def test_a_hundred_identical_approvals_decide_once_and_answer_alike(session, monkeypatch):
    test = a_test(session)
    review, reward = a_review(session, test, person(session))
    key = api_key(session, "reviews:read", "reviews:write")
    with served(session, monkeypatch) as base:
        answers = all_at_once(base, key, f"/reviews/{review.id}/approve", idempotency_key="approve-once")
    status, body = one_answer(answers)
    assert status == 200, body
    assert body == {
        "decided": 1,
        "reviews": [{"id": review.id, "status": "approved", "reward_id": reward.id, "reward_status": "PENDING"}],
    }
    assert fresh(session, Review, review.id).status == "approved"
    assert fresh(session, Reward, reward.id).approved_at is not None
    [row] = audit_of(session, "review.approve")
    assert row.target_id == str(review.id) and row.api_key_id == key_id(session, key)
    assert kept_count(session) == 1


def test_a_hundred_identical_bonuses_give_one_bonus(session, monkeypatch):
    test = a_test(session)
    who = person(session)
    review, _ = a_review(session, test, who)
    key = api_key(session, "rewards:read", "rewards:write")
    request = {"participant_id": who.id, "review_id": review.id, "amount_cents": 750, "note": "Great detail."}
    with served(session, monkeypatch) as base:
        answers = all_at_once(base, key, "/rewards/bonuses", idempotency_key="bonus-once", json=request)
    status, body = one_answer(answers)
    assert status == 201, body
    assert body["kind"] == bonuses.BONUS and body["amount_cents"] == 750 and body["participant_id"] == who.id
    session.expire_all()
    made = list(session.execute(select(Reward).where(Reward.kind == bonuses.BONUS)).scalars())
    assert [(r.id, r.account_id, r.amount_cents, r.test_id) for r in made] == [(body["id"], who.id, 750, test.id)]
    [row] = audit_of(session, "reward.bonus")
    assert row.target_id == str(body["id"]) and row.api_key_id == key_id(session, key)
    assert row.after["note"] == "Great detail." and row.after["review"] == review.id
    assert kept_count(session) == 1


def test_a_repeat_is_replayed_and_the_same_key_for_another_request_is_refused(session, monkeypatch):
    test = a_test(session)
    who = person(session)
    first, _ = a_review(session, test, who)
    second, _ = a_review(session, test, person(session))
    key = api_key(session, "reviews:write", "rewards:write")
    bonus = {"participant_id": who.id, "test_id": test.id, "amount_cents": 500}
    with api_client(session, monkeypatch, key) as client:
        made = client.post("/rewards/bonuses", json=bonus, headers={"Idempotency-Key": "b-1"})
        assert made.status_code == 201, made.json()
        assert "Idempotent-Replayed" not in made.headers
        again = client.post("/rewards/bonuses", json=bonus, headers={"Idempotency-Key": "b-1"})
        assert (again.status_code, again.json()) == (201, made.json())
        assert again.headers["Idempotent-Replayed"] == "true"

        other_body = client.post(
            "/rewards/bonuses", json={**bonus, "amount_cents": 600}, headers={"Idempotency-Key": "b-1"}
        )
        assert other_body.status_code == 422
        assert other_body.json() == {"errors": [{"field": "Idempotency-Key", "message": KEY_REUSED}]}

        approved = client.post(f"/reviews/{first.id}/approve", headers={"Idempotency-Key": "d-1"})
        assert approved.status_code == 200, approved.json()
        other_path = client.post(f"/reviews/{second.id}/approve", headers={"Idempotency-Key": "d-1"})
        assert other_path.status_code == 422
        assert other_path.json()["errors"][0]["message"] == KEY_REUSED

        bad_key = client.post(f"/reviews/{second.id}/approve", headers={"Idempotency-Key": "bad\x01key"})
        assert bad_key.status_code == 422 and bad_key.json()["errors"][0]["field"] == "Idempotency-Key"
    session.expire_all()
    assert session.execute(select(func.count()).where(Reward.kind == bonuses.BONUS)).scalar_one() == 1
    assert fresh(session, Review, second.id).status == "submitted"
    assert len(audit_of(session, "review.approve")) == 1


def test_a_refusal_is_not_kept_the_same_key_is_tried_again(session, monkeypatch):
    """A 409 changed nothing and is not kept: the key's next request runs (and is refused again, as it is now)."""
    test = a_test(session)
    review, _ = a_review(session, test, person(session), status="approved")
    key = api_key(session, "reviews:write")
    with api_client(session, monkeypatch, key) as client:
        first = client.post(f"/reviews/{review.id}/approve", headers={"Idempotency-Key": "late"})
        second = client.post(f"/reviews/{review.id}/approve", headers={"Idempotency-Key": "late"})
    assert first.status_code == second.status_code == 409
    assert "Idempotent-Replayed" not in second.headers
    assert kept_count(session) == 0
