"""Staff test management (portal/services/admin/definition_files.py, test_edit.py, tests.py) on a migrated
database, SQLite and PostgreSQL: import from a file with every problem by path and nothing written,
export that imports back unchanged, editing the common fields with the status rule, the tests list's
counts and filters, and who may call what."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlmodel import Session

from portal.domain.staff import roles
from portal.domain.staff.editing import NOT_A_SUM, form_of
from portal.models import AuditEntry, Review, ReviewSession, Test
from portal.services.admin import definition_files as test_files
from portal.services.admin import editing as test_edit
from portal.services.admin import tests
from portal.services.admin.guard import NOT_ALLOWED, StaffRefused
from portal.services.definition_import import document_for
from portal.services.seeding import seed_reference
from tests.integration.test_admin_services import _actors, a_review, build_world, person
from tests.support.factories import unique_email

DEMO = Path(__file__).resolve().parents[2] / "portal" / "data" / "demo_tests"
SA, TO, TM = roles.SUPER_ADMIN, roles.TEAM_OWNER, roles.TEAM_MANAGER


def demo(file: str, **overrides: Any) -> dict[str, Any]:
    doc = json.loads((DEMO / file).read_text())
    doc["name"] = f"{doc['name']} {unique_email()}"
    doc.update(overrides)
    return doc


def as_bytes(doc: Any) -> bytes:
    return json.dumps(doc).encode()


def counts(session: Session) -> tuple[int, int]:
    session.expire_all()
    return (
        session.execute(select(func.count()).select_from(Test)).scalar_one(),
        session.execute(select(func.count()).select_from(AuditEntry)).scalar_one(),
    )


@pytest.fixture
def admin(session: Session) -> int:
    seed_reference(session)
    session.commit()
    return person(session, role=TM).id


# --- import and export --------------------------------------------------------------------------


@pytest.mark.parametrize("file", sorted(p.name for p in DEMO.glob("*.json")))
def test_every_demo_test_imports_and_its_export_imports_back_unchanged(session, admin, file):
    doc = demo(file)
    created = test_files.import_file(session=session, actor_id=admin, data=as_bytes(doc))
    session.commit()
    assert created.outcome == "created", created.problems
    name, text = test_files.export_test(session=session, actor_id=admin, test_id=created.test_id)
    session.commit()
    assert name == f"test-{created.test_id}.json"
    row_before = session.get(Test, created.test_id).model_dump()
    tests_before, audit_before = counts(session)
    again = test_files.import_file(session=session, actor_id=admin, data=text.encode())
    session.commit()
    assert again.outcome == "unchanged" and again.test_id == created.test_id
    assert counts(session) == (tests_before, audit_before)  # nothing written, not even an audit row
    assert session.get(Test, created.test_id).model_dump() == row_before
    # The export says what the file said (plus the defaults it left out).
    exported = json.loads(text)
    assert {k: v for k, v in exported.items() if k in doc} == {
        k: v for k, v in doc.items() if k != "qualifications"
    } | ({"qualifications": sorted(doc["qualifications"])} if "qualifications" in doc else {})


def test_a_file_with_two_problems_lists_both_by_path_and_writes_nothing(session, admin):
    doc = demo("01-survey.json")
    doc["sessionSeconds"] = 1234
    doc["survey"]["questions"][0]["type"] = "dropdown"
    before = counts(session)
    result = test_files.import_file(session=session, actor_id=admin, data=as_bytes(doc))
    session.commit()
    assert result.outcome == "refused" and len(result.problems) == 2
    assert result.problems[0].startswith("sessionSeconds: ")
    assert result.problems[1].startswith("survey.questions[0].type: ")
    assert result.message == "Nothing was imported: 2 problems to fix."
    assert counts(session) == before


@pytest.mark.parametrize(
    "data,message",
    [
        (b"{not json", "The file is not valid JSON: "),
        (b"\xff\xfe\x00", "The file is not UTF-8 text."),
        (b" " * (test_files.MAX_FILE_BYTES + 1), "The file is bigger than 5 MB"),
        (b"[1, 2]", "a test definition must be a JSON object"),
        ("a string, not bytes", "The file is not UTF-8 text."),
    ],
)
def test_unreadable_files_are_refused_with_a_clear_message(session, admin, data, message):
    before = counts(session)
    result = test_files.import_file(session=session, actor_id=admin, data=data)
    assert result.outcome == "refused" and result.problems[0].startswith(message)
    assert counts(session) == before


def test_import_updates_by_name_and_records_what_changed(session, admin):
    doc = demo("02-landing-page.json")
    first = test_files.import_file(session=session, actor_id=admin, data=as_bytes(doc))
    session.commit()
    changed = {**copy.deepcopy(doc), "payoutCents": 3500, "frameOfMind": "You run a small agency."}
    result = test_files.import_file(session=session, actor_id=admin, data=as_bytes(changed))
    session.commit()
    assert (result.outcome, result.test_id) == ("updated", first.test_id)
    test = session.get(Test, first.test_id)
    assert (test.payout_cents, test.frame_of_mind) == (3500, "You run a small agency.")
    entry = (
        session.execute(select(AuditEntry).where(AuditEntry.action == "test.import").order_by(AuditEntry.id.desc()))
        .scalars()
        .first()
    )
    assert entry.before == {"fields": ["frameOfMind", "payoutCents"]} and entry.after["outcome"] == "updated"


def test_import_keeps_the_status_rule_and_unknown_qualifications_write_nothing(session, admin):
    doc = demo("01-survey.json", status="running")
    test_files.import_file(session=session, actor_id=admin, data=as_bytes(doc))
    session.commit()
    back = test_files.import_file(session=session, actor_id=admin, data=as_bytes({**doc, "status": "draft"}))
    assert back.outcome == "refused" and back.problems == [
        "status: A running test can become stopped or completed, not draft."
    ]
    before = counts(session)
    unknown = test_files.import_file(
        session=session, actor_id=admin, data=as_bytes(demo("01-survey.json", qualifications=["No such qualification"]))
    )
    session.commit()
    assert unknown.outcome == "refused" and unknown.problems == [
        "qualifications[0]: unknown qualification 'No such qualification'"
    ]
    assert counts(session) == before


# --- editing ------------------------------------------------------------------------------------


def _imported(session: Session, admin: int, file: str = "01-survey.json", **overrides: Any) -> Test:
    result = test_files.import_file(session=session, actor_id=admin, data=as_bytes(demo(file, **overrides)))
    session.commit()
    return session.get(Test, result.test_id)


def test_editing_the_common_fields_saves_them_and_exports_them(session, admin):
    test = _imported(session, admin)
    view = test_edit.edit_view(session=session, actor_id=admin, test_id=test.id)
    form = {
        **view.form,
        "payout": "27.50",
        "limit": "40",
        "seniority.senior": "5",
        "seniority.middle": "",
        "session": "900",
        "country": "de",
        "frame": "You lead a data team.",
        "welcome.title": "Hello",
        "panel": "custom",
    }
    result = test_edit.save_edit(session=session, actor_id=admin, test_id=test.id, form=form)
    session.commit()
    assert result.saved, result.problems
    assert result.changed == [
        "audienceCountry",
        "frameOfMind",
        "panel",
        "participantLimit",
        "payoutCents",
        "seniorityLimits",
        "sessionSeconds",
        "welcomeModal",
    ]
    session.expire_all()
    test = session.get(Test, test.id)
    assert (
        test.payout_cents,
        test.participant_limit,
        test.seniority_limits,
        test.session_seconds,
        test.audience_country,
        test.panel,
        test.welcome_modal["title"],
    ) == (2750, 40, {"specialist": 20, "senior": 5}, 900, "DE", "custom", "Hello")
    assert form_of(document_for(session, test))["payout"] == "27.50"
    entry = session.execute(select(AuditEntry).where(AuditEntry.action == "test.edit")).scalars().one()
    assert entry.before["payoutCents"] == 2000 and entry.after["payoutCents"] == 2750


@pytest.mark.parametrize(
    "field,value,message",
    [
        ("payout", "twenty", NOT_A_SUM),
        ("limit", "-3", "Enter a whole number, or leave it empty for no limit."),
        ("session", "600", "must be one of"),
        ("name", "", "is required"),
        ("country", "XX", "must be an ISO 3166 alpha-2 country code"),
        ("status", "draft", "A running test can become stopped or completed, not draft."),
        ("status", "launched", "Choose one of the listed statuses."),
    ],
)
def test_a_bad_field_is_named_and_nothing_is_saved(session, admin, field, value, message):
    test = _imported(session, admin, status="running")
    row = test.model_dump()
    form = {**test_edit.edit_view(session=session, actor_id=admin, test_id=test.id).form, field: value}
    result = test_edit.save_edit(session=session, actor_id=admin, test_id=test.id, form=form)
    session.commit()
    assert not result.saved and message in result.problems[field]
    session.expire_all()
    assert session.get(Test, test.id).model_dump() == row


def test_a_name_another_test_has_is_refused(session, admin):
    one, other = _imported(session, admin), _imported(session, admin)
    form = {**test_edit.edit_view(session=session, actor_id=admin, test_id=one.id).form, "name": other.name}
    result = test_edit.save_edit(session=session, actor_id=admin, test_id=one.id, form=form)
    assert not result.saved and result.problems == {"name": test_edit.NAME_TAKEN}


def test_status_changes_follow_the_rule_and_launching_sets_the_launch_time(session, admin):
    test = _imported(session, admin, status="draft")
    assert test_edit.edit_view(session=session, actor_id=admin, test_id=test.id).statuses == [
        "draft",
        "ready-to-launch",
        "scheduled",
        "running",
        "removed",
    ]
    for status, offered in (
        ("running", ["running", "stopped", "completed"]),
        ("stopped", ["stopped", "running", "completed", "removed"]),
    ):
        form = {**test_edit.edit_view(session=session, actor_id=admin, test_id=test.id).form, "status": status}
        result = test_edit.save_edit(session=session, actor_id=admin, test_id=test.id, form=form)
        session.commit()
        assert result.saved and result.changed == ["status"] and result.view.statuses == offered
    session.expire_all()
    assert session.get(Test, test.id).launched_at is not None
    assert [
        e.action
        for e in session.execute(
            select(AuditEntry).where(AuditEntry.target_id == str(test.id)).order_by(AuditEntry.id)
        ).scalars()
    ][-2:] == ["test.status", "test.status"]


def test_hostile_forms_change_nothing(session, admin):
    test = _imported(session, admin)
    row = test.model_dump()
    for form in (None, [], "x", {"name": ["list"]}, {"unknown": "1"}):
        try:
            result = test_edit.save_edit(session=session, actor_id=admin, test_id=test.id, form=form)
            assert not result.saved
        except Exception as e:  # a refusal with a message, never a crash
            assert getattr(e, "message", "") == "Nothing to save."
    for bad_id in ("1; drop", -1, None, [1], 10**12):
        with pytest.raises(Exception) as refused:
            test_edit.save_edit(session=session, actor_id=admin, test_id=bad_id, form={})
        assert getattr(refused.value, "message", "") in ("This test does not exist.", "Nothing to save.")
    session.expire_all()
    assert session.get(Test, test.id).model_dump() == row


# --- the list -----------------------------------------------------------------------------------


def test_the_list_shows_counts_and_filters_by_kind(session, admin):
    survey = _imported(session, admin, status="running")
    pref = _imported(session, admin, "04-preference-image.json")
    people = [person(session) for _ in range(3)]
    a_review(session, survey, people[0], status="approved", approved=True)
    a_review(session, survey, people[1])
    for who in people:
        session.add(
            ReviewSession(
                test_id=survey.id,
                account_id=who.id,
                respondent_key=f"account:{who.id}",
                status="active",
                deadline_at=survey.created_at,
            )
        )
    session.commit()
    query = tests.clean_query(search=survey.name)
    [row] = tests.list_tests(session=session, actor_id=admin, query=query).rows
    assert (row["started"], row["reviews"], row["approved"], row["waiting"], row["payout"], row["session"]) == (
        "3",
        "2",
        "1",
        "1",
        "$20",
        "60 minutes",
    )
    kind = tests.clean_query(filters=[{"name": "kind", "type": "list", "values": ["preference"]}], page_size=200)
    names = {r["name"] for r in tests.list_tests(session=session, actor_id=admin, query=kind).rows}
    assert pref.name in names and survey.name not in names
    assert session.execute(select(func.count()).select_from(Review)).scalar_one() >= 2


# --- who may call what ---------------------------------------------------------------------------

CALLS = [
    (
        "test_files.import_file",
        roles.MANAGE_TESTS,
        lambda s, a, w: test_files.import_file(session=s, actor_id=a, data=as_bytes(demo("01-survey.json"))),
    ),
    (
        "test_files.export_test",
        roles.MANAGE_TESTS,
        lambda s, a, w: test_files.export_test(session=s, actor_id=a, test_id=w.test),
    ),
    ("test_edit.edit_view", roles.VIEW, lambda s, a, w: test_edit.edit_view(session=s, actor_id=a, test_id=w.test)),
    (
        "test_edit.save_edit",
        roles.MANAGE_TESTS,
        lambda s, a, w: test_edit.save_edit(
            session=s,
            actor_id=a,
            test_id=w.test,
            form={**test_edit.edit_view(session=s, actor_id=w.staff[SA], test_id=w.test).form, "payout": "31"},
        ),
    ),
    (
        "tests.list_tests",
        roles.VIEW,
        lambda s, a, w: tests.list_tests(session=s, actor_id=a, query=tests.clean_query()),
    ),
]


@pytest.mark.parametrize("name,permission,call", CALLS, ids=[c[0] for c in CALLS])
def test_every_cell_of_the_matrix_for_the_test_functions(session, name, permission, call):
    seed_reference(session)
    world = build_world(session)
    audit_before = session.execute(select(func.count()).select_from(AuditEntry)).scalar_one()
    cases = [*_actors(world), *((role, world.staff[role], role in roles.MATRIX[permission]) for role in roles.ROLES)]
    for who, actor, works in cases:
        session.rollback()
        if works:
            assert call(session, actor, world) is not None, (name, who)
        else:
            with pytest.raises(StaffRefused) as refused:
                call(session, actor, world)
            assert refused.value.message == NOT_ALLOWED
            assert session.execute(select(func.count()).select_from(AuditEntry)).scalar_one() == audit_before
    session.rollback()
