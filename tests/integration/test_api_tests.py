"""/api/v1/tests as a caller sees it (issue 39): create and update by definition with the import's checks, read the
definition back, versions, launch, schedule, stop, resume, duplicate; cursor pages; 401/403/404/409/422 in the one
error shape; every write audited under its key. On SQLite and PostgreSQL."""

from __future__ import annotations

import copy
import json
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlmodel import Session, select

from portal.api.schemas.tests import EXAMPLE_DEFINITION
from portal.domain.taking.access import SURVEY_VIEW
from portal.models import AuditEntry, Test
from portal.services.admin import definition_files, editing
from portal.services.taking import review_sessions
from tests.support.api import api_client, api_key, at_once, errors_of, key_id
from tests.support.factories import make_participant

ROOT = Path(__file__).resolve().parents[2]
STATUS_MOVED_DRAFT = editing.STATUS_MOVED.format(status="draft")
BAD_CHARACTERS = "contains characters that are not allowed (control characters or invalid Unicode)."


def survey(**changes) -> dict:
    """The demo survey's definition under a name of its own."""
    document = json.loads((ROOT / "portal/data/demo_tests/01-survey.json").read_text())
    document.update({"name": f"API survey {uuid.uuid4().hex[:8]}", "status": "draft", **changes})
    return document


def audit_rows(session: Session, action: str) -> list[AuditEntry]:
    session.expire_all()
    return list(session.exec(select(AuditEntry).where(AuditEntry.action == action).order_by(AuditEntry.id)).all())


@pytest.fixture
def writer(session: Session, monkeypatch: pytest.MonkeyPatch):
    key = api_key(session, "tests:read", "tests:write")
    with api_client(session, monkeypatch, key) as client:
        client.key = key
        yield client


def create(client, document: dict) -> dict:
    answer = client.post("/tests", json=document)
    assert answer.status_code == 201, answer.text
    return answer.json()


# --- create and read ---------------------------------------------------------------------------------------


def test_a_definition_creates_a_test_that_reads_back_as_it_was_sent(session, writer):
    document = survey()
    made = create(writer, document)

    assert made["name"] == document["name"] and made["status"] == "draft" and made["version"] == 1
    assert made["product_type"] == "survey" and made["scheduled_at"] is None and made["launched_at"] is None
    read = writer.get(f"/tests/{made['id']}")
    assert read.status_code == 200
    assert read.json() == made
    assert read.json()["definition"]["survey"] == document["survey"]
    # The answer is the export's document: imported again, it changes nothing.
    again = definition_files.import_file(
        session, actor_id=api_staff(session, writer.key), data=json.dumps(read.json()["definition"]).encode()
    )
    assert again.outcome == "unchanged"
    [row] = audit_rows(session, "test.import")
    assert (row.target_id, row.api_key_id, row.after["outcome"]) == (
        str(made["id"]),
        key_id(session, writer.key),
        "created",
    )


def api_staff(session: Session, key: str) -> int:
    from portal.models import ApiKey

    session.expire_all()
    return session.get(ApiKey, key_id(session, key)).created_by_id


def test_the_documented_example_is_a_definition_the_api_accepts(writer):
    made = create(writer, {**EXAMPLE_DEFINITION, "name": f"Example {uuid.uuid4().hex[:6]}"})
    assert made["definition"]["survey"]["questions"][0]["text"] == "How easy was checkout?"


def test_every_problem_of_a_definition_is_answered_under_its_path_and_nothing_is_made(session, writer):
    document = survey(payoutCents="twenty", sessionSeconds=61)
    document["survey"]["questions"][0]["type"] = "nonsense"
    answer = writer.post("/tests", json=document)

    assert answer.status_code == 422
    problems = errors_of(answer)
    fields = [field for field, _ in problems]
    assert "payoutCents" in fields and "sessionSeconds" in fields and "survey.questions[0].type" in fields
    assert all(message for _, message in problems)
    session.expire_all()
    assert session.exec(select(Test).where(Test.name == document["name"])).first() is None


def test_a_body_that_is_not_an_object_or_not_json_is_refused_in_the_error_shape(writer):
    listed = writer.post("/tests", json=[1, 2])
    assert listed.status_code == 422 and errors_of(listed)[0][1]
    broken = writer.post("/tests", content=b"{not json", headers={"content-type": "application/json"})
    assert broken.status_code == 422 and errors_of(broken)


def test_a_name_in_use_is_a_conflict_and_the_existing_test_is_unchanged(writer):
    first = create(writer, survey())
    answer = writer.post("/tests", json=survey(name=first["name"], payoutCents=5000))

    assert answer.status_code == 409
    assert errors_of(answer) == [("name", definition_files.versions.NAME_TAKEN)]
    assert writer.get(f"/tests/{first['id']}").json()["definition"]["payoutCents"] == 2000


def test_a_new_test_cannot_be_made_scheduled_or_completed(writer):
    for status in ("scheduled", "completed"):
        answer = writer.post("/tests", json=survey(status=status))
        assert answer.status_code == 422
        assert [field for field, _ in errors_of(answer)] == ["status"]


# --- keys and scopes ---------------------------------------------------------------------------------------------


def test_a_read_key_reads_but_does_not_write_and_no_key_is_refused(session, monkeypatch, writer):
    made = create(writer, survey())
    reader = api_key(session, "tests:read")
    with api_client(session, monkeypatch, reader) as client:
        assert client.get(f"/tests/{made['id']}").status_code == 200
        for answer in (
            client.post("/tests", json=survey()),
            client.post(f"/tests/{made['id']}/launch"),
            client.put(f"/tests/{made['id']}", json=made["definition"]),
        ):
            assert answer.status_code == 403
            assert errors_of(answer) == [(None, "This API key does not have the scope tests:write.")]
    with api_client(session, monkeypatch, None) as anonymous:
        answer = anonymous.get("/tests")
        assert answer.status_code == 401 and answer.headers["www-authenticate"] == "Bearer"


# --- lists -------------------------------------------------------------------------------------------------------


def test_the_list_pages_through_every_test_newest_first(writer):
    made = [create(writer, survey())["id"] for _ in range(5)]
    seen, cursor, pages = [], None, 0
    while True:
        answer = writer.get("/tests", params={"limit": 2, **({"cursor": cursor} if cursor else {})})
        assert answer.status_code == 200
        body = answer.json()
        assert len(body["data"]) <= 2
        seen += [row["id"] for row in body["data"]]
        pages += 1
        cursor = body["next_cursor"]
        if cursor is None:
            break
    assert pages >= 3
    assert seen == sorted(seen, reverse=True) and len(seen) == len(set(seen))
    assert set(made) <= set(seen)
    row = next(r for r in writer.get("/tests", params={"limit": 200}).json()["data"] if r["id"] == made[0])
    assert set(row) == {
        "id", "name", "product_type", "status", "version", "created_at", "updated_at", "launched_at", "scheduled_at",
    }  # fmt: skip


def test_the_list_filters_by_status_and_refuses_what_it_does_not_know(writer):
    draft = create(writer, survey())
    running = create(writer, survey(status="running"))
    listed = writer.get("/tests", params={"status": "running", "limit": 200}).json()["data"]
    assert running["id"] in [r["id"] for r in listed] and draft["id"] not in [r["id"] for r in listed]
    assert {r["status"] for r in listed} == {"running"}
    for params, field in (
        ({"status": "sleeping"}, "status"),
        ({"cursor": "not-a-cursor"}, "cursor"),
        ({"limit": 0}, "limit"),
        ({"limit": 201}, "limit"),
    ):
        answer = writer.get("/tests", params=params)
        assert answer.status_code == 422, params
        assert [f for f, _ in errors_of(answer)] == [field]


# --- unknown tests ------------------------------------------------------------------------------------------------


def test_an_unknown_test_is_404_on_every_route_and_a_bad_id_422(writer):
    document = survey()
    for method, path, body in (
        ("GET", "/tests/99999", None),
        ("PUT", "/tests/99999", document),
        ("GET", "/tests/99999/versions", None),
        ("GET", "/tests/99999/versions/1", None),
        ("POST", "/tests/99999/launch", None),
        ("POST", "/tests/99999/schedule", {"at": "2099-01-01T10:00:00Z"}),
        ("POST", "/tests/99999/stop", None),
        ("POST", "/tests/99999/resume", None),
        ("POST", "/tests/99999/duplicate", None),
    ):
        answer = writer.request(method, path, json=body)
        assert answer.status_code == 404, (method, path, answer.text)
        assert errors_of(answer) == [(None, "This test does not exist.")]
    made = create(writer, survey())
    assert writer.get(f"/tests/{made['id']}/versions/7").status_code == 404
    for bad in ("0", "abc", str(2**31)):
        answer = writer.get(f"/tests/{bad}")
        assert answer.status_code == 422 and [f for f, _ in errors_of(answer)] == ["test_id"]


# --- update and versions -------------------------------------------------------------------------------------------


def start_on(session: Session, test_id: int) -> None:
    """A participant starts the test: its newest version is sealed (in use)."""
    who = make_participant(session)
    review_sessions.start_session(session=session, test_id=test_id, account_id=who.id, view=SURVEY_VIEW)
    session.commit()


def test_an_update_saves_the_definition_and_a_test_in_use_asks_for_its_version_first(session, writer):
    made = create(writer, survey(status="running"))
    test_id, document = made["id"], copy.deepcopy(made["definition"])
    document["payoutCents"] = 3000
    answer = writer.put(f"/tests/{test_id}", json=document)
    assert answer.status_code == 200, answer.text
    assert (answer.json()["definition"]["payoutCents"], answer.json()["new_version"]) == (3000, False)
    [row] = audit_rows(session, "test.edit")
    assert row.api_key_id == key_id(session, writer.key) and row.after["source"] == "api"

    start_on(session, test_id)
    document["survey"]["questions"][0]["text"] = "A reworded first question?"
    asked = writer.put(f"/tests/{test_id}", json=document)
    assert asked.status_code == 409
    [(field, message)] = errors_of(asked)
    assert field == "confirm" and "1 person is taking version 1" in message and "confirm=1" in message
    assert (
        writer.get(f"/tests/{test_id}").json()["definition"]["survey"]["questions"][0]["text"]
        != document["survey"]["questions"][0]["text"]
    )
    assert writer.put(f"/tests/{test_id}", params={"confirm": 5}, json=document).status_code == 409

    saved = writer.put(f"/tests/{test_id}", params={"confirm": 1}, json=document)
    assert saved.status_code == 200 and saved.json()["new_version"] is True and saved.json()["version"] == 2

    versions = writer.get(f"/tests/{test_id}/versions").json()["data"]
    assert [(v["number"], v["sealed"], v["in_progress"]) for v in versions] == [(2, False, 0), (1, True, 1)]
    assert versions[0]["source"] == "api" and versions[0]["source_label"] == "REST API"
    one = writer.get(f"/tests/{test_id}/versions/1").json()
    assert one["number"] == 1 and one["definition"]["survey"]["questions"][0]["text"] != "A reworded first question?"


def test_an_update_refuses_problems_a_taken_name_and_a_status_change(writer):
    first, second = create(writer, survey()), create(writer, survey())
    document = copy.deepcopy(second["definition"])

    bad = writer.put(f"/tests/{second['id']}", json={**document, "sessionSeconds": 7})
    assert bad.status_code == 422 and [f for f, _ in errors_of(bad)] == ["sessionSeconds"]
    taken = writer.put(f"/tests/{second['id']}", json={**document, "name": first["name"]})
    assert taken.status_code == 409 and errors_of(taken) == [("name", definition_files.versions.NAME_TAKEN)]
    moved = writer.put(f"/tests/{second['id']}", json={**document, "status": "running"})
    assert moved.status_code == 422 and [f for f, _ in errors_of(moved)] == ["status"]
    renamed = writer.put(f"/tests/{second['id']}", json={**document, "name": second["name"] + " renamed"})
    assert renamed.status_code == 200 and renamed.json()["name"] == second["name"] + " renamed"
    assert writer.get(f"/tests/{second['id']}").json()["status"] == "draft"


# --- launch, schedule, stop, resume, duplicate ----------------------------------------------------------------------


def test_launch_stop_and_resume_move_the_test_once_each(session, writer):
    test_id = create(writer, survey())["id"]

    launched = writer.post(f"/tests/{test_id}/launch")
    assert launched.status_code == 200, launched.text
    assert launched.json()["status"] == "running" and launched.json()["launched_at"] is not None
    again = writer.post(f"/tests/{test_id}/launch")
    assert again.status_code == 409 and errors_of(again) == [(None, "This test is already running.")]
    assert writer.post(f"/tests/{test_id}/resume").status_code == 409

    stopped = writer.post(f"/tests/{test_id}/stop")
    assert stopped.status_code == 200 and stopped.json()["status"] == "stopped"
    assert errors_of(writer.post(f"/tests/{test_id}/stop")) == [(None, "This test is already stopped.")]
    resumed = writer.post(f"/tests/{test_id}/resume")
    assert resumed.status_code == 200 and resumed.json()["status"] == "running"
    rows = [r for r in audit_rows(session, "test.status") if r.target_id == str(test_id)]
    assert [(r.before["status"], r.after["status"]) for r in rows] == [
        ("draft", "running"),
        ("running", "stopped"),
        ("stopped", "running"),
    ]
    assert {r.api_key_id for r in rows} == {key_id(session, writer.key)}


def test_a_draft_with_problems_is_not_launched(writer, session):
    made = create(writer, survey())
    test = session.get(Test, made["id"])
    test.survey = {**test.survey, "questions": []}  # what the builder's draft may hold
    session.add(test)
    session.commit()
    answer = writer.post(f"/tests/{made['id']}/launch")
    assert answer.status_code == 409
    [reason, *problems] = errors_of(answer)
    assert reason[0] is None and reason[1].startswith("This test's definition has 1 problem (listed below)")
    assert problems == [("survey.questions", "needs at least 1 question")]
    assert writer.get(f"/tests/{made['id']}").json()["status"] == "draft"


def test_schedule_sets_the_start_and_refuses_a_time_past_or_without_its_offset(writer):
    test_id = create(writer, survey())["id"]
    at = (datetime.now(UTC) + timedelta(days=2)).replace(second=0, microsecond=0)

    scheduled = writer.post(f"/tests/{test_id}/schedule", json={"at": at.isoformat()})
    assert scheduled.status_code == 200, scheduled.text
    assert scheduled.json()["status"] == "scheduled"
    assert datetime.fromisoformat(scheduled.json()["scheduled_at"]) == at

    past = writer.post(f"/tests/{test_id}/schedule", json={"at": "2020-01-01T10:00:00Z"})
    assert past.status_code == 422 and [f for f, _ in errors_of(past)] == ["at"]
    naive = writer.post(f"/tests/{test_id}/schedule", json={"at": "2099-01-01T10:00:00"})
    assert naive.status_code == 422 and [f for f, _ in errors_of(naive)] == ["at"]
    assert writer.post(f"/tests/{test_id}/schedule", json={}).status_code == 422
    launched = writer.post(f"/tests/{test_id}/launch")
    assert launched.json()["status"] == "running" and launched.json()["scheduled_at"] is None


def test_duplicate_makes_a_draft_copy_once_per_idempotency_key(session, writer):
    made = create(writer, survey(status="running"))
    headers = {"Idempotency-Key": str(uuid.uuid4())}

    first = writer.post(f"/tests/{made['id']}/duplicate", headers=headers)
    second = writer.post(f"/tests/{made['id']}/duplicate", headers=headers)

    assert first.status_code == second.status_code == 201
    assert first.json() == second.json() and second.headers["idempotent-replayed"] == "true"
    copy_ = first.json()
    assert copy_["name"] == f"Copy of {made['name']}" and copy_["status"] == "draft" and copy_["id"] != made["id"]
    assert copy_["definition"]["survey"] == made["definition"]["survey"]
    [row] = audit_rows(session, "test.duplicate")
    assert row.api_key_id == key_id(session, writer.key)
    other = writer.post(f"/tests/{made['id']}/duplicate")
    assert other.status_code == 201 and other.json()["name"] == f"Copy of {made['name']} (2)"


def test_values_the_database_cannot_hold_are_refused_with_a_message(session, writer):
    """Never a server error from bad input: a quota past the integer column, a NUL or a lone surrogate in text."""
    too_many = writer.post("/tests", json=survey(participantLimit=10**12))
    assert too_many.status_code == 422 and [f for f, _ in errors_of(too_many)] == ["participantLimit"]
    for raw in ('{"name": "a\\u0000b", "productType": "survey"}', '{"name": "\\ud800", "productType": "survey"}'):
        answer = writer.post("/tests", content=raw.encode(), headers={"content-type": "application/json"})
        assert answer.status_code == 422, answer.text
        [(field, message)] = errors_of(answer)  # the request's guard or the definition's check, whichever is first
        assert field is None and message.endswith(BAD_CHARACTERS)
    made = create(writer, survey())
    answer = writer.put(f"/tests/{made['id']}", json={**made["definition"], "participantLimit": 2**31})
    assert answer.status_code == 422 and [f for f, _ in errors_of(answer)] == ["participantLimit"]


def test_fifty_launches_at_once_launch_the_test_once(session, monkeypatch, writer):
    test_id = create(writer, survey())["id"]
    answers = at_once(session, monkeypatch, writer.key, "POST", f"/tests/{test_id}/launch", n=50)

    assert sorted(a.status_code for a in answers) == [200] + [409] * 49
    refusals = {tuple(map(tuple, (e.values() for e in a.json()["errors"]))) for a in answers if a.status_code == 409}
    assert refusals <= {((None, "This test is already running."),), ((None, STATUS_MOVED_DRAFT),)}
    rows = [r for r in audit_rows(session, "test.status") if r.target_id == str(test_id)]
    assert [(r.before["status"], r.after["status"]) for r in rows] == [("draft", "running")]
