"""The partner round trips on the server (issue 39, item 5), against the partners' stand-ins on loopback, on SQLite
and PostgreSQL: the research service's invitation checked before anything opens, the panel's signature checked, the
completion reported once per report (two workers at once), and the crowd-work completion code checked by the API."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest
from sqlmodel import Session, func, select

from portal.domain import partners as rules
from portal.domain.invites import rating_path
from portal.domain.staff import roles
from portal.models import PartnerCallback, PartnerEntry, Review, ReviewSession
from portal.models._base import utcnow
from portal.services import partner_sender, partners
from portal.services.admin import reviews as staff_reviews
from portal.services.seeding import seed_reference
from portal.services.taking import definitions as test_definitions
from portal.services.taking import steps as test_taking
from portal.services.taking.loading import load_test
from portal.standins.panel_exchange import entry_link
from tests.support.api import api_client, api_key
from tests.support.partner_standins import PANEL_NAME, PANEL_SECRET, PORTAL_URL, PartnerStandins
from tests.support.people import caller, demo_test

BROWSER = "d" * 32
ANSWERS = {
    "dev-language": {"type": "single-choice", "value": "python"},
    "dev-ci": {"type": "short-text", "value": "GitHub Actions"},
}
DETAILS = {
    "firstName": "Ada",
    "lastName": "Lovelace",
    "country": "US",
    "state": "US-NY",
    "email": "ada@example.org",
    "linkedin": "https://www.linkedin.com/in/ada",
}
CROWD_DETAILS = {"workerId": "W1CROWD", "firstName": "Sam", "state": "US-NY"}


@pytest.fixture
def standins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[PartnerStandins]:
    with PartnerStandins(tmp_path / "partners.db") as running:
        running.use(monkeypatch)
        yield running


def members_test(session: Session, panel: str):
    """The developer survey without its public qualification: nobody without an account may take it by default."""
    seed_reference(session)
    test_definitions._cache.clear()  # each database starts its ids again
    return demo_test(session, "08-public-qualification.json", panel=panel, qualifications=[])


def count(session: Session, model) -> int:
    return session.exec(select(func.count()).select_from(model)).one()


def take(session: Session, test_id: int, respondent: str, details: dict, submission: str = "s-1"):
    test_taking.start(session=session, token=None, view="survey", test_id=test_id, respondent=respondent)
    result = test_taking.submit(
        session=session,
        token=None,
        view="survey",
        test_id=test_id,
        respondent=respondent,
        answers=ANSWERS,
        worker_data=details,
        submission_id=submission,
    )
    session.commit()
    return result


@contextmanager
def _scope(engine) -> Iterator[Session]:
    with Session(engine, expire_on_commit=False) as session:
        yield session
        session.commit()


def deliver(session: Session) -> int:
    engine = session.get_bind()
    return asyncio.run(partner_sender.deliver_due(lambda: _scope(engine)))


def respondent_query(project: str, response: str) -> dict[str, str]:
    return {rules.PROJECT_PARAM: project, rules.SCREENER_RESPONSE_PARAM: response}


# --- the research-participant service ------------------------------------------------------------------------------
def test_an_invited_respondent_takes_the_test_and_the_service_hears_it_once(session: Session, standins):
    test = members_test(session, "external")
    standins.invite("proj-1", "sr-1")
    key = f"respondent:proj-1:{BROWSER}"
    # Before the check, the key alone opens nothing (the browser's word is never enough).
    with pytest.raises(test_taking.SignedOutError):
        test_taking.start(session=session, token=None, view="survey", test_id=test.id, respondent=key)
    session.rollback()

    admission = partners.admit(
        session, test_id=test.id, query=respondent_query("proj-1", "sr-1"), path=rating_path(test.id)
    )
    session.commit()
    assert admission.admitted and admission.partner == rules.RESPONDENT and len(admission.token) == 32
    page = load_test(
        session, test_id=test.id, account_id=None, respondent_project_id="proj-1", partner_admitted=admission.admitted
    )
    assert page.state == "ok" and page.view == "survey"
    # Another browser's key cannot take this entry, nor can a key of another project.
    assert not partners.bind(session, test_id=test.id, token=admission.token, respondent=f"respondent:other:{BROWSER}")
    assert partners.bind(session, test_id=test.id, token=admission.token, respondent=key)
    assert not partners.bind(
        session, test_id=test.id, token=admission.token, respondent=f"respondent:proj-1:{'e' * 32}"
    )
    session.commit()

    result = take(session, test.id, key, DETAILS)
    entry = session.exec(select(PartnerEntry).where(PartnerEntry.token == admission.token)).one()
    assert entry.outcome == rules.COMPLETE and entry.review_id == result.review_id
    assert entry.data["firstName"] == "Ada"  # what the service said about them is kept
    assert result.exit_url is None and result.completion_code is None

    assert deliver(session) == 1
    assert deliver(session) == 0  # delivered once
    (row,) = session.exec(select(PartnerCallback)).all()
    session.refresh(row)
    assert row.delivered_at is not None
    assert standins.completions() == [
        {
            "key": f"partner-callback-{row.id}",
            "event": "participant.completed",
            "projectId": "proj-1",
            "screenerResponseId": "sr-1",
            "testId": test.id,
            "status": "complete",
        }
    ]


def test_a_respondent_the_service_did_not_invite_is_refused_with_the_specs_message(session: Session, standins):
    test = members_test(session, "external")
    standins.invite("proj-1", "sr-2", invited=False)
    for response in ("sr-2", "sr-unknown"):
        admission = partners.admit(
            session, test_id=test.id, query=respondent_query("proj-1", response), path=rating_path(test.id)
        )
        assert admission.refused and not admission.admitted and not admission.token
        assert admission.refused_text == "You are not invited to participate to this test."
    assert count(session, PartnerEntry) == 0
    # Without the check, the rating page's own decision refuses them too.
    page = load_test(session, test_id=test.id, account_id=None, respondent_project_id="proj-1")
    assert page.state == "not-invited"


def test_a_research_service_that_cannot_be_reached_admits_nobody(session: Session, standins, monkeypatch):
    test = members_test(session, "external")
    standins.use(monkeypatch, respondent_api_url="http://127.0.0.1:9/api")  # nothing listens there
    admission = partners.admit(
        session, test_id=test.id, query=respondent_query("demo-project", "invited-1"), path=rating_path(test.id)
    )
    assert admission.refused and admission.refused_text == rules.MSG_RESPONDENT_DOWN
    assert count(session, PartnerEntry) == 0


# --- the panel exchange ------------------------------------------------------------------------------------------
def panel_query(test_id: int, respondent: str, changes: dict[str, str] | None = None) -> dict[str, str]:
    url = entry_link(base_url=PORTAL_URL, name=PANEL_NAME, secret=PANEL_SECRET, test_id=test_id, rid=respondent)
    return {**dict(parse_qsl(urlsplit(url).query)), **(changes or {})}


@pytest.mark.parametrize(
    ("changes", "text"),
    [
        ({"rid": "R-OTHER"}, rules.MSG_BAD_SIGNATURE),  # another respondent under the same signature
        ({"sig": "0" * 64}, rules.MSG_BAD_SIGNATURE),
        ({"sig": ""}, rules.MSG_BAD_SIGNATURE),
        ({"panel": "another-exchange"}, rules.MSG_UNKNOWN_PANEL),
        ({"rid": ""}, rules.MSG_BAD_PARAMS),
    ],
)
def test_a_panel_link_that_does_not_hold_is_refused_and_nothing_is_stored(session: Session, standins, changes, text):
    test = members_test(session, "b2b")
    admission = partners.admit(
        session, test_id=test.id, query=panel_query(test.id, "R-1", changes), path=rating_path(test.id)
    )
    assert admission.refused and admission.refused_text == text and not admission.token
    assert count(session, PartnerEntry) == 0


def test_a_link_signed_for_another_test_is_refused(session: Session, standins):
    test = members_test(session, "b2b")
    admission = partners.admit(
        session, test_id=test.id, query=panel_query(test.id + 1, "R-1"), path=rating_path(test.id)
    )
    assert admission.refused_text == rules.MSG_BAD_SIGNATURE


def test_a_panel_entrant_completes_goes_back_signed_and_the_exchange_gets_one_callback(session: Session, standins):
    test = members_test(session, "b2b")
    admission = partners.admit(session, test_id=test.id, query=panel_query(test.id, "R-1"), path=rating_path(test.id))
    assert admission.admitted
    key = f"public:{BROWSER}"
    assert partners.bind(session, test_id=test.id, token=admission.token, respondent=key)
    session.commit()
    result = take(session, test.id, key, DETAILS)
    exit_url = urlsplit(result.exit_url)
    params = dict(parse_qsl(exit_url.query))
    assert exit_url.path == "/local-panel/exit"
    assert params["outcome"] == "complete" and params["rid"] == "R-1" and params["test"] == str(test.id)
    assert rules.verify(PANEL_SECRET, exit_url.path, params)
    # A repeated submission gets the same way back, and owes nothing more.
    again = test_taking.submit(
        session=session,
        token=None,
        view="survey",
        test_id=test.id,
        respondent=key,
        answers=ANSWERS,
        worker_data=DETAILS,
        submission_id="s-1",
    )
    assert not again.created and urlsplit(again.exit_url).query.startswith("outcome=complete")
    assert count(session, PartnerCallback) == 1
    # The entry link used again: no second visit, straight back as it ended (and nothing more owed).
    entries = count(session, PartnerEntry)
    reuse = partners.admit(session, test_id=test.id, query=panel_query(test.id, "R-1"), path=rating_path(test.id))
    assert not reuse.admitted and not reuse.token
    assert dict(parse_qsl(urlsplit(reuse.exit_url).query))["outcome"] == "complete"
    assert count(session, PartnerEntry) == entries and count(session, PartnerCallback) == 1
    session.rollback()
    assert deliver(session) == 1
    (callback,) = standins.callbacks()
    assert callback["outcome"] == "complete" and callback["rid"] == "R-1" and callback["panel"] == PANEL_NAME

    # Staff reject it later: the exchange hears 'quality' (once, whatever is asked again).
    manager = caller(session, roles.TEAM_MANAGER)
    assert staff_reviews.decide(
        session=session, actor_id=manager.account_id, review_ids=[result.review_id], approve=False, reason="low-effort"
    )
    session.commit()
    assert not partners.on_rejected(session, review_id=result.review_id)
    session.rollback()
    assert deliver(session) == 1
    assert [c["outcome"] for c in standins.callbacks()] == ["complete", "quality"]


def test_a_panel_entrant_of_a_full_test_goes_back_over_quota(session: Session, standins):
    test = members_test(session, "b2b")
    admission = partners.admit(session, test_id=test.id, query=panel_query(test.id, "R-9"), path=rating_path(test.id))
    session.commit()
    url = partners.conclude_blocked(session, token=admission.token, state="limit-reached")
    assert dict(parse_qsl(urlsplit(url).query))["outcome"] == "overquota"
    # Reloading the page gives the same way back, and one report.
    assert partners.conclude_blocked(session, token=admission.token, state="limit-reached") is not None
    assert partners.conclude_blocked(session, token=admission.token, state="ok") is None
    session.commit()
    assert count(session, PartnerCallback) == 1


# --- delivery: retries, and exactly once with two workers ------------------------------------------------------------
def _owe(session: Session, n: int) -> list[int]:
    test = members_test(session, "b2b")
    ids = []
    for i in range(n):
        entry = PartnerEntry(partner=rules.PANEL, test_id=test.id, token=f"{i:032x}", panel=PANEL_NAME, rid=f"R{i}")
        session.add(entry)
        session.flush()
        row = PartnerCallback(
            partner=rules.PANEL, entry_id=entry.id, outcome="complete", payload={"rid": f"R{i}", "outcome": "complete"}
        )
        session.add(row)
        session.flush()
        ids.append(row.id)
    session.commit()
    return ids


def test_two_workers_deliver_each_report_once(session: Session, standins):
    ids = _owe(session, 12)
    engine = session.get_bind()

    async def both() -> list[int]:
        return list(
            await asyncio.gather(
                partner_sender.deliver_due(lambda: _scope(engine)), partner_sender.deliver_due(lambda: _scope(engine))
            )
        )

    assert sum(asyncio.run(both())) == 12
    requests = standins.callback_requests()
    assert sorted(r["idempotencyKey"] for r in requests) == sorted(f"partner-callback-{i}" for i in ids)
    assert len(standins.callbacks()) == 12
    session.expire_all()
    assert all(row.delivered_at is not None for row in session.exec(select(PartnerCallback)).all())


def test_a_report_the_partner_missed_is_tried_again_later(session: Session, standins, monkeypatch):
    (row_id,) = _owe(session, 1)
    standins.use(monkeypatch, panel_exchange_callback_url="http://127.0.0.1:9/down")
    assert deliver(session) == 0
    session.expire_all()
    row = session.get(PartnerCallback, row_id)
    assert row.attempts == 1 and row.delivered_at is None and "unreachable" in row.last_error
    assert row.next_attempt_at.replace(tzinfo=None) > utcnow().replace(tzinfo=None)
    assert deliver(session) == 0  # not due yet
    standins.use(monkeypatch)  # the exchange is back; the retry is due
    row.next_attempt_at = utcnow() - timedelta(seconds=1)
    session.add(row)
    session.commit()
    assert deliver(session) == 1
    assert [c["key"] for c in standins.callbacks()] == [f"partner-callback-{row_id}"]


# --- crowd-work: the completion code ----------------------------------------------------------------------------------
def test_a_crowd_work_worker_gets_a_code_the_api_confirms(session: Session, standins, monkeypatch):
    seed_reference(session)
    test_definitions._cache.clear()
    test = demo_test(session, "08-public-qualification.json", panel="mturk")
    query = {"assignmentId": "ASSIGN-1", "workerId": "W1CROWD", "hitId": "HIT-1", "turkSubmitTo": "https://x.test"}
    admission = partners.admit(session, test_id=test.id, query=query, path=rating_path(test.id))
    assert admission.partner == rules.CROWD_WORK and not admission.admitted  # the test's own public qualification
    key = f"public:{BROWSER}"
    assert partners.bind(session, test_id=test.id, token=admission.token, respondent=key)
    session.commit()
    result = take(session, test.id, key, CROWD_DETAILS)
    code = result.completion_code
    assert rules.normal_code(code) == code
    review = session.get(Review, result.review_id)
    assert review.survey_code == code and review.worker_data["assignmentId"] == "ASSIGN-1"

    reader = api_key(session, "reviews:read")
    with api_client(session, monkeypatch, reader) as client:
        found = client.get(f"/completion-codes/{code.lower()}")
        unknown = client.get("/completion-codes/" + "A" * 10)
        malformed = client.get("/completion-codes/not-a-code")
    assert found.status_code == 200, found.json()
    assert found.json() == {
        "code": code,
        "valid": True,
        "test_id": test.id,
        "review_id": review.id,
        "worker_id": "W1CROWD",
        "assignment_id": "ASSIGN-1",
        "status": "submitted",
    }
    assert unknown.status_code == 404 and unknown.json()["errors"][0]["field"] == "code"
    assert malformed.status_code == 404
    other = api_key(session, "tests:read")
    with api_client(session, monkeypatch, other) as client:
        assert client.get(f"/completion-codes/{code}").status_code == 403
    with api_client(session, monkeypatch, None) as client:
        assert client.get(f"/completion-codes/{code}").status_code == 401


def test_a_crowd_work_link_to_a_members_test_records_and_opens_nothing(session: Session, standins):
    test = members_test(session, "mturk")
    query = {"assignmentId": "ASSIGN-2", "workerId": "W2"}
    admission = partners.admit(session, test_id=test.id, query=query, path=rating_path(test.id))
    assert admission.partner == rules.CROWD_WORK and not admission.admitted and not admission.token
    assert count(session, PartnerEntry) == 0


def test_every_crowd_work_submission_gets_its_own_code(session: Session, standins):
    seed_reference(session)
    test_definitions._cache.clear()
    test = demo_test(session, "08-public-qualification.json", panel="mturk")
    codes = {take(session, test.id, f"public:{c * 32}", CROWD_DETAILS).completion_code for c in "abc"}
    assert len(codes) == 3
    assert count(session, ReviewSession) == 3
    assert json.dumps(sorted(codes))  # three distinct readable codes


# --- the stand-ins answer this machine only ------------------------------------------------------------------------
def test_the_stand_ins_refuse_other_computers(tmp_path: Path):
    from fastapi import FastAPI
    from starlette.testclient import TestClient

    from portal.standins import panel_exchange, respondent
    from portal.standins.partner_store import PartnerStore

    store = PartnerStore(tmp_path / "partners.db")
    app = FastAPI()
    app.include_router(respondent.build_router(store, "key"))
    app.include_router(panel_exchange.build_router(store, base_url=PORTAL_URL, name=PANEL_NAME, secret=PANEL_SECRET))
    with TestClient(app, client=("203.0.113.9", 5000)) as outsider:
        for path in ("/local-respondent/api/v1/respondent-participant", "/local-panel/entry/1", "/local-panel/exit"):
            assert outsider.get(path, headers={"Authorization": "Bearer key"}).status_code == 403
    with TestClient(app, client=("127.0.0.1", 5000)) as local:
        assert local.get("/local-respondent/api/v1/completions").status_code == 401  # and the API wants its key
        answer = local.get(
            "/local-respondent/api/v1/respondent-participant",
            params={"projectId": "p", "screenerResponseId": "r"},
            headers={"Authorization": "Bearer key"},
        )
        assert answer.json() == {"screenerResponseData": None, "isInvited": False, "errors": []}
        unsigned = local.post("/local-panel/api/callbacks", json={}, headers={"Idempotency-Key": "k"})
        assert unsigned.status_code == 401
