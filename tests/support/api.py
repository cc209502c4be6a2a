"""The REST API (/api/v1, issue 39) in integration tests: a super-admin's key made by the real service, and a client
of the portal's real FastAPI app (`portal.http.app.build_api()`) whose transactions run on the test's database.

    from tests.support.api import api_client, api_key, at_once, key_id

    def test_listing(session, monkeypatch):                     # `session`: the sqlite/postgres fixture
        key = api_key(session, "tests:read")                     # plaintext `pk_...`, for a new super-admin
        with api_client(session, monkeypatch, key) as client:    # paths are under /api/v1, the key is sent
            answer = client.get("/tests", params={"limit": 2})
        assert answer.status_code == 200, answer.json()

    # 50 identical requests at the same instant (one event loop, the app's own worker threads):
    answers = at_once(session, monkeypatch, key, "POST", "/tests/1/invites", n=50, json={...},
                      headers={"Idempotency-Key": "k-1"})

- Commit what the test made before a request: the app reads it in its own transactions (`db.run`).
- `api_client(..., key=None)` sends no Authorization header (for 401 tests); `client.headers` may be changed.
- The rate-limit window is fresh per client (key ids repeat across the tests' databases).
- `key_id(session, key)` is the stored key's id (audit rows carry it as `api_key_id`).
- `errors_of(answer)` is an error answer's [(field, message)], after checking it has the one error shape.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest
from sqlmodel import Session
from starlette.testclient import TestClient

from portal import db
from portal.api import rate_limit
from portal.api.app import PREFIX
from portal.domain import api_keys as key_rules
from portal.domain.staff import roles
from portal.models import ApiKey
from portal.services.admin import api_keys
from tests.support.people import caller

BASE = f"http://testserver{PREFIX}/"


def api_key(session: Session, *scopes: str, who: int | None = None, rate_per_minute: int | None = None) -> str:
    """A new key with these scopes (all of them when none are named), made through `create_key` by a new
    super-admin (or by the account `who`); committed. Returns the plaintext key."""
    if who is None:
        who = caller(session, roles.SUPER_ADMIN).account_id
    made = api_keys.create_key(
        session,
        actor_id=who,
        name="test key",
        scopes=list(scopes or key_rules.SCOPES),
        rate_per_minute=rate_per_minute,
    )
    session.commit()
    return made.key


def key_id(session: Session, key: str) -> int:
    """The id of the stored key (what audit rows carry as `api_key_id`)."""
    found = session.query(ApiKey).filter(ApiKey.key_hash == key_rules.key_hash(key)).one()
    assert found.id is not None
    return found.id


def errors_of(answer: httpx.Response) -> list[tuple[str | None, str]]:
    """The (field, message) pairs of an error answer; fails unless the body is exactly `{"errors": [...]}`."""
    body = answer.json()
    assert set(body) == {"errors"}, body
    assert all(set(item) == {"field", "message"} for item in body["errors"]), body
    return [(item["field"], item["message"]) for item in body["errors"]]


def _on_test_database(session: Session, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(db, "engine", lambda: session.get_bind())  # the routes' transactions on the test's database
    monkeypatch.setattr(rate_limit, "_window", rate_limit.Window())  # a fresh count per test


def _headers(key: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"} if key else {}


@contextmanager
def api_client(session: Session, monkeypatch: pytest.MonkeyPatch, key: str | None = None) -> Iterator[TestClient]:
    """A client of the portal's app at /api/v1/ (relative paths: `client.get("/tests")`) sending `key`."""
    from portal.http.app import build_api

    _on_test_database(session, monkeypatch)
    with TestClient(build_api(), base_url=BASE, headers=_headers(key)) as client:
        yield client


def at_once(
    session: Session,
    monkeypatch: pytest.MonkeyPatch,
    key: str | None,
    method: str,
    path: str,
    *,
    n: int,
    **request: Any,
) -> list[httpx.Response]:
    """`n` identical requests sent together (asyncio.gather on one httpx.AsyncClient over ASGI); their answers in
    order. `request` is passed to `httpx.AsyncClient.request` (json=, params=, headers=)."""
    from portal.http.app import build_api

    _on_test_database(session, monkeypatch)
    app = build_api()

    async def send() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url=BASE, headers=_headers(key)) as client:
            return list(await asyncio.gather(*(client.request(method, path.lstrip("/"), **request) for _ in range(n))))

    return asyncio.run(send())


__all__ = ["BASE", "api_client", "api_key", "at_once", "errors_of", "key_id"]
