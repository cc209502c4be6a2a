"""Every route of /api/v1, as its OpenAPI document lists it (a route added later is attacked too), called over real
HTTP on the running portal without a key, with a malformed one, an unknown one, a revoked one, one whose creator is
no longer a super-admin, and one with every scope but the route's: 401 or 403 in the one error shape, with the
challenge header on 401, and nothing written (no audit row under a key, no kept answer, no subscription).

The scope a route needs is read from its OpenAPI operation's `x-required-scope`, which portal/api/deps.py writes from
the route's own dependency: a route without a key dependency has none and fails here.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select

from portal.api.app import PREFIX, build_v1
from portal.api.deps import ANY_SCOPE, SCOPE_EXTENSION
from portal.domain import api_keys as rules
from portal.domain.staff import roles
from portal.models import Account, AuditEntry, IdempotentRequest, WebhookSubscription
from portal.services.admin import api_keys
from tests.support.people import caller

METHODS = ("get", "put", "post", "delete", "patch")
DOCUMENT = build_v1().openapi()
OPERATIONS = [
    (method.upper(), path, operation)
    for path, item in DOCUMENT["paths"].items()
    for method, operation in item.items()
    if method in METHODS
]
WRITTEN = (AuditEntry, IdempotentRequest, WebhookSubscription)


@dataclass(frozen=True)
class Keys:
    revoked: str
    demoted: str  # its creator is no longer a super-admin
    without: dict[str, str]  # scope -> a live key with every scope but that one


@pytest.fixture(scope="module")
def keys(app_server) -> Keys:
    with app_server.db() as db:
        admin = caller(db, roles.SUPER_ADMIN).account_id
        assert admin is not None

        def made(scopes: list[str], who: int = admin) -> str:
            key = api_keys.create_key(db, actor_id=who, name="refused", scopes=scopes, rate_per_minute=100_000).key
            db.commit()
            return key

        every = list(rules.SCOPES)
        revoked = made(every)
        api_keys.revoke_key(db, actor_id=admin, key_id=api_keys.authenticate(db, key=revoked).id)
        db.commit()
        demoted_admin = caller(db, roles.SUPER_ADMIN).account_id
        assert demoted_admin is not None
        demoted = made(every, demoted_admin)
        account = db.get(Account, demoted_admin)
        account.staff_role = roles.TEAM_OWNER
        db.add(account)
        db.commit()
        return Keys(revoked, demoted, {scope: made([s for s in every if s != scope]) for scope in every})


@pytest.fixture(scope="module")
def client(app_server) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=app_server.url + PREFIX, timeout=30, follow_redirects=False) as http:
        yield http


def _request(operation: dict[str, Any], path: str) -> dict[str, Any]:
    """The path with each parameter 1, every required query parameter 1, an Idempotency-Key, and a body of {}."""
    url = re.sub(r"\{[^}]+\}", "1", path)
    params = {p["name"]: "1" for p in operation.get("parameters", []) if p.get("in") == "query" and p.get("required")}
    request: dict[str, Any] = {"params": params, "headers": {"Idempotency-Key": f"refused-{uuid.uuid4()}"}}
    if "requestBody" in operation:
        request["json"] = {}
    return {"url": url, **request}


def _written(app_server) -> dict[str, tuple[int, int]]:
    """What a request with a key writes: audit rows made with a key (the app's own jobs audit without one), kept
    answers, subscriptions."""
    where = {AuditEntry: AuditEntry.api_key_id.is_not(None)}
    with app_server.db() as db:
        return {
            model.__name__: tuple(
                db.execute(
                    select(func.count(), func.coalesce(func.max(model.id), 0)).where(where.get(model, True))
                ).one()
            )
            for model in WRITTEN
        }


def test_every_operation_names_the_scope_its_key_needs_and_the_served_document_is_this_one(client):
    missing = [f"{m} {p}" for m, p, op in OPERATIONS if op.get(SCOPE_EXTENSION) not in (*rules.SCOPES, ANY_SCOPE)]
    assert not missing, f"routes that take no key (or an unknown scope): {missing}"
    served = client.get("/openapi.json").json()
    assert served["paths"] == DOCUMENT["paths"]
    assert len(OPERATIONS) >= 10


@pytest.mark.parametrize(("method", "path", "operation"), OPERATIONS, ids=[f"{m} {p}" for m, p, _ in OPERATIONS])
def test_a_route_refuses_every_caller_without_a_live_key_with_its_scope(
    app_server, client, keys, method, path, operation
):
    scope = operation[SCOPE_EXTENSION]
    request = _request(operation, path)
    before = _written(app_server)
    refusals: list[tuple[str, dict[str, str], int, str]] = [
        ("no key", {}, 401, rules.MISSING_KEY),
        ("an empty bearer", {"Authorization": "Bearer"}, 401, rules.MISSING_KEY),
        ("another scheme", {"Authorization": f"Basic {keys.revoked}"}, 401, rules.MISSING_KEY),
        ("a malformed key", {"Authorization": "Bearer not-a-key"}, 401, rules.BAD_KEY),
        ("a key too long", {"Authorization": f"Bearer pk_{'a' * 300}"}, 401, rules.BAD_KEY),
        ("an unknown key", {"Authorization": f"Bearer {rules.new_key()}"}, 401, rules.BAD_KEY),
        ("a revoked key", {"Authorization": f"Bearer {keys.revoked}"}, 401, rules.BAD_KEY),
        ("a demoted creator's key", {"Authorization": f"Bearer {keys.demoted}"}, 401, rules.BAD_KEY),
    ]
    if scope != ANY_SCOPE:
        refusals.append(("a key without the scope", {"Authorization": f"Bearer {keys.without[scope]}"}, 403, ""))
    wrong = []
    for who, auth, status, message in refusals:
        answer = client.request(
            method,
            request["url"],
            params=request["params"],
            json=request.get("json"),
            headers={**request["headers"], **auth},
        )
        expected = message or rules.OUT_OF_SCOPE.format(scope=scope)
        body = answer.json() if answer.headers.get("content-type", "").startswith("application/json") else answer.text
        if answer.status_code != status or body != {"errors": [{"field": None, "message": expected}]}:
            wrong.append(f"{who}: {answer.status_code} {body}")
        elif status == 401 and answer.headers.get("www-authenticate") != "Bearer":
            wrong.append(f"{who}: no WWW-Authenticate: Bearer")
    assert not wrong, f"{method} {path}:\n" + "\n".join(wrong)
    assert _written(app_server) == before
