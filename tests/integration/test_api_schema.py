"""Schemathesis against /api/v1 (issue 39), on SQLite and PostgreSQL: every operation of the OpenAPI document (a route
added later is taken too) is called by the portal's real app with a live key of every scope, with valid and with
invalid input it generates from the document, over rows a staff member would see (a running test, a submitted review
with its reward, participants). No answer is a server error, every answer's status is documented for its operation,
and every answer's body and Content-Type conform to what the document says.

A few examples per operation and mode keep it to about a minute a database; SCHEMA_EXAMPLES raises it.
"""

from __future__ import annotations

import itertools
import os
import traceback
from datetime import timedelta
from typing import Any

import hypothesis
import schemathesis
from hypothesis import HealthCheck, Phase, given
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from sqlmodel import Session

from portal.api.app import PREFIX
from portal.models import Invite
from portal.models._base import utcnow
from tests.integration.test_admin_services import a_review, a_test, person
from tests.support.api import _on_test_database, api_client, api_key

EXAMPLES = int(os.environ.get("SCHEMA_EXAMPLES", "6"))
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]
SETTINGS = hypothesis.settings(
    max_examples=EXAMPLES,
    phases=[Phase.explicit, Phase.generate],
    deadline=None,
    database=None,
    derandomize=True,  # the same examples every run: a failure is repeatable
    suppress_health_check=list(HealthCheck),
    print_blob=False,
)


def _rows(session: Session) -> dict[str, str]:
    """What a staff member would see: a running test with submitted reviews and their rewards, an open invite, and
    participants. Returns the ids valid calls name in their paths."""
    test = a_test(session)
    made = [a_review(session, test, person(session)) for _ in range(3)]
    invitee = person(session, verified=False)
    invite = Invite(
        account_id=invitee.id,
        test_id=test.id,
        amount_cents=2500,
        status="open",
        expires_at=utcnow() + timedelta(days=1),
    )
    session.add(invite)
    session.commit()
    review, reward = made[0]
    return {
        "test_id": str(test.id),
        "review_id": str(review.id),
        "reward_id": str(reward.id),
        "participant_id": str(invitee.id),
        "invite_id": str(invite.id),
        "number": "1",
    }


def _failures(schema: Any, key: str, ids: dict[str, str], answered: dict[str, set[int]]) -> list[str]:
    """What breaks the document, per operation and mode; `answered` gets each operation's statuses. Every other
    valid call names the rows of `ids` in its path (the others, and the invalid calls, what was generated)."""
    found: list[str] = []
    turn = itertools.count()
    headers = {"Authorization": f"Bearer {key}"}
    for result in schema.get_all_operations():
        operation = result.ok()
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):

            @SETTINGS
            @given(case=operation.as_strategy(generation_mode=mode))
            def check(case: Any) -> None:
                if mode is GenerationMode.POSITIVE and case.path_parameters and next(turn) % 2:
                    case.path_parameters = {name: ids.get(name, value) for name, value in case.path_parameters.items()}
                response = case.call(headers=headers)
                answered.setdefault(f"{case.method} {operation.path}", set()).add(response.status_code)
                case.validate_response(response, checks=CHECKS, headers=headers)

            try:
                check()
            except (Exception, BaseExceptionGroup) as failure:  # noqa: BLE001 - each operation is reported, all run
                text = "".join(traceback.format_exception_only(failure)).strip()
                found.append(f"{operation.method.upper()} {operation.path} ({mode.value}):\n{text[:3000]}")
    return found


def test_every_operation_answers_as_documented_without_a_server_error(session, monkeypatch):
    ids = _rows(session)
    key = api_key(session, rate_per_minute=100_000)  # every scope, for a new super-admin
    _on_test_database(session, monkeypatch)
    from portal.http.app import build_api

    schema = schemathesis.openapi.from_asgi(f"{PREFIX}/openapi.json", build_api())
    assert len(list(schema.get_all_operations())) >= 10
    answered: dict[str, set[int]] = {}
    failures = _failures(schema, key, ids, answered)
    assert not failures, f"{len(failures)} operations break the document:\n\n" + "\n\n".join(failures)
    # The calls got through to the routes: each list without a path parameter answered with rows at least once.
    lists = [name for name in answered if name.startswith("GET ") and "{" not in name]
    never = {name: answered[name] for name in lists if not any(200 <= s < 300 for s in answered[name])}
    assert lists and not never, f"lists that never answered 2xx: {never}"
    for name in ("GET /tests/{test_id}", "GET /reviews/{review_id}", "GET /rewards/{reward_id}"):
        assert any(200 <= s < 300 for s in answered.get(name, ())), (name, answered.get(name))


def test_any_path_under_the_api_answers_in_its_error_shape(session, monkeypatch):
    """A path the API has no route for, a newline (%0A) in it included, is the API's 404, not the portal's."""
    key = api_key(session, rate_per_minute=100_000)
    with api_client(session, monkeypatch, key) as client:
        for path in ("/nothing-here", "/nothing%0Ahere", "/tests/1/nothing%0A", "/%0A"):
            answer = client.get(path)
            assert answer.status_code == 404, (path, answer.text)
            assert answer.json() == {"errors": [{"field": None, "message": "Not found."}]}, path
