"""The test builder's service (portal/services/admin/builder.py) on a migrated database, SQLite and
PostgreSQL: the draft kept after every change and merged into the saved test, saving through the one
door (audit row, draft dropped), the limits of a draft, the staff matrix, and the preview of a draft."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session

from portal.domain.authoring import document as d
from portal.domain.reference_data import QUESTION_TYPES
from portal.domain.staff import roles
from portal.models import AuditEntry, Test
from portal.services.admin import builder, definition_files, versions
from portal.services.admin import preview as admin_preview
from portal.services.admin.guard import NOT_ALLOWED, StaffRefused
from portal.services.errors import ServiceError
from tests.integration.test_admin_services import _actors, audit_rows, build_world, count, fresh
from tests.support.factories import unique_email


def a_survey(session: Session, **kwargs: Any) -> Test:
    values = {
        "name": f"Builder {unique_email()}",
        "status": "draft",
        "product_type": "survey",
        "survey": {"questions": [{"key": "start", "type": "short-text", "text": "Your role?"}]},
        **kwargs,
    }
    test = Test(**values)
    session.add(test)
    session.commit()
    return test


def every_type(document: dict[str, Any]) -> dict[str, Any]:
    doc = document
    for qtype in QUESTION_TYPES:
        doc = d.add_question(doc, "survey.questions", qtype)
        doc = d.set_field(doc, f"survey.questions[{len(doc['survey']['questions']) - 1}].text", f"About {qtype}")
    return doc


def test_the_builder_opens_on_the_saved_definition_then_on_the_kept_draft(session):
    world = build_world(session)
    staff = world.staff[roles.SUPER_ADMIN]
    test = a_survey(session)
    view = builder.open_builder(session=session, actor_id=staff, test_id=test.id)
    assert not view.has_draft and view.kind == "survey" and view.version >= 1
    assert view.document["survey"]["questions"][0]["key"] == "start"
    working = every_type(view.document)
    builder.save_draft(session=session, actor_id=staff, test_id=test.id, document=working)
    session.commit()
    stored = fresh(session, Test, test.id)
    assert set(stored.draft_document) == {"survey"}  # only the builder's part is kept
    assert len(stored.survey["questions"]) == 1  # the definition itself is untouched
    again = builder.open_builder(session=session, actor_id=staff, test_id=test.id)
    assert again.has_draft and len(again.document["survey"]["questions"]) == 13
    assert again.document["name"] == test.name


def test_a_change_on_the_details_page_meanwhile_is_kept(session):
    world = build_world(session)
    staff = world.staff[roles.SUPER_ADMIN]
    test = a_survey(session)
    working = every_type(builder.open_builder(session=session, actor_id=staff, test_id=test.id).document)
    builder.save_draft(session=session, actor_id=staff, test_id=test.id, document=working)
    row = fresh(session, Test, test.id)
    row.frame_of_mind = "Written on the details page"
    session.add(row)
    session.commit()
    outcome = builder.save(session=session, actor_id=staff, test_id=test.id, document=working)
    assert outcome.saved and outcome.version >= 1
    saved = fresh(session, Test, test.id)
    assert saved.frame_of_mind == "Written on the details page"
    assert [q["type"] for q in saved.survey["questions"][1:]] == list(QUESTION_TYPES)
    assert saved.draft_document is None
    assert audit_rows(session, "test.edit")[-1].target_id == str(test.id)


def test_an_invalid_document_is_not_saved_and_every_problem_has_its_path(session):
    world = build_world(session)
    staff = world.staff[roles.SUPER_ADMIN]
    test = a_survey(session)
    working = builder.open_builder(session=session, actor_id=staff, test_id=test.id).document
    working = d.add_question(working, "survey.questions", "single-choice")
    working = d.set_field(working, "survey.questions[1].embeddedLink", "https://videos.example.com/1")
    audits = count(session, AuditEntry)
    outcome = builder.save(session=session, actor_id=staff, test_id=test.id, document=working)
    assert not outcome.saved
    assert outcome.problems["survey.questions[1].text"] == "is required"
    assert "YouTube, Vimeo, Dailymotion or Loom" in outcome.problems["survey.questions[1].embeddedLink"]
    assert count(session, AuditEntry) == audits
    assert len(fresh(session, Test, test.id).survey["questions"]) == 1


def test_discarding_the_draft_goes_back_to_the_saved_definition(session):
    world = build_world(session)
    staff = world.staff[roles.SUPER_ADMIN]
    test = a_survey(session)
    working = every_type(builder.open_builder(session=session, actor_id=staff, test_id=test.id).document)
    builder.save_draft(session=session, actor_id=staff, test_id=test.id, document=working)
    view = builder.discard_draft(session=session, actor_id=staff, test_id=test.id)
    session.commit()
    assert not view.has_draft and len(view.document["survey"]["questions"]) == 1
    assert fresh(session, Test, test.id).draft_document is None


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ("not a document", "not a test definition"),
        ({"survey": {"questions": [{"text": "x" * (6 * 1024 * 1024)}]}}, "too big"),
        ({"survey": {"questions": [{"text": "bad \x00 text"}]}}, "not allowed"),
        ({"survey": {"questions": [{"text": float("nan")}]}}, "not a test definition"),
    ],
)
def test_a_draft_outside_the_limits_is_refused_with_a_message(session, document, message):
    world = build_world(session)
    test = a_survey(session)
    with pytest.raises(ServiceError, match=message):
        builder.save_draft(session=session, actor_id=world.staff[roles.SUPER_ADMIN], test_id=test.id, document=document)
    assert fresh(session, Test, test.id).draft_document is None


def test_too_deep_a_draft_is_refused(session):
    world = build_world(session)
    test = a_survey(session)
    deep: Any = "x"
    for _ in range(40):
        deep = [deep]
    with pytest.raises(ServiceError, match="nested too deeply"):
        builder.save_draft(
            session=session, actor_id=world.staff[roles.SUPER_ADMIN], test_id=test.id, document={"survey": deep}
        )


def test_the_preview_of_a_draft_shows_its_questions_and_checks_answers_against_them(session):
    world = build_world(session)
    staff = world.staff[roles.SUPER_ADMIN]
    test = a_survey(session)
    working = every_type(builder.open_builder(session=session, actor_id=staff, test_id=test.id).document)
    required_key = working["survey"]["questions"][5]["key"]  # the short-text question, in the draft only
    working = d.set_field(working, "survey.questions[5].isRequired", True)
    builder.save_draft(session=session, actor_id=staff, test_id=test.id, document=working)
    session.commit()
    entry = admin_preview.enter(session=session, actor_id=staff, test_id=test.id, view="survey", draft=True)
    assert len(entry.definition.questions) == 13
    saved = admin_preview.enter(session=session, actor_id=staff, test_id=test.id, view="survey")
    assert len(saved.definition.questions) == 1
    run = admin_preview.start(session=session, actor_id=staff, test_id=test.id, view="survey", draft=True)
    with pytest.raises(ServiceError) as refused:
        admin_preview.submit(
            session=session,
            actor_id=staff,
            test_id=test.id,
            view="survey",
            run=run,
            answers={"start": {"type": "short-text", "value": "CTO"}},
            worker_data={},
            submission_id="sub-1",
            draft=True,
        )
    assert f"answers.{required_key}" in refused.value.errors


def test_an_invalid_draft_has_no_preview_and_says_why(session):
    world = build_world(session)
    staff = world.staff[roles.SUPER_ADMIN]
    test = a_survey(session)
    working = d.add_question(
        builder.open_builder(session=session, actor_id=staff, test_id=test.id).document, "survey.questions", "rating"
    )
    builder.save_draft(session=session, actor_id=staff, test_id=test.id, document=working)
    session.commit()
    with pytest.raises(ServiceError, match="problem"):
        admin_preview.enter(session=session, actor_id=staff, test_id=test.id, view="survey", draft=True)


CALLS = [
    ("builder.open_builder", roles.VIEW, lambda s, a, t: builder.open_builder(session=s, actor_id=a, test_id=t)),
    (
        "builder.save_draft",
        roles.MANAGE_TESTS,
        lambda s, a, t: builder.save_draft(session=s, actor_id=a, test_id=t, document={"survey": {}}) or True,
    ),
    (
        "builder.discard_draft",
        roles.MANAGE_TESTS,
        lambda s, a, t: builder.discard_draft(session=s, actor_id=a, test_id=t),
    ),
    (
        "builder.save",
        roles.MANAGE_TESTS,
        lambda s, a, t: builder.save(
            session=s,
            actor_id=a,
            test_id=t,
            document={"survey": {"questions": [{"key": "k", "type": "short-text", "text": "Why?"}]}},
        ),
    ),
]


@pytest.mark.parametrize("name,permission,call", CALLS, ids=[c[0] for c in CALLS])
def test_every_cell_of_the_matrix_for_every_builder_function(session, name, permission, call):
    world = build_world(session)
    test = a_survey(session)
    cases = [*_actors(world), *((role, world.staff[role], role in roles.MATRIX[permission]) for role in roles.ROLES)]
    refused_someone = False
    for who, actor, works in cases:
        session.rollback()
        if works:
            assert call(session, actor, test.id) is not None, (name, who)
            continue
        refused_someone = True
        before = fresh(session, Test, test.id)
        draft, survey, audits = before.draft_document, before.survey, count(session, AuditEntry)
        with pytest.raises(StaffRefused) as refused:
            call(session, actor, test.id)
        assert refused.value.message == NOT_ALLOWED
        assert count(session, AuditEntry) == audits, (name, who)
        row = fresh(session, Test, test.id)
        assert (row.draft_document, row.survey) == (draft, survey), (name, who)
    assert refused_someone


DEMOS = sorted((Path(__file__).resolve().parents[2] / "portal" / "data" / "demo_tests").glob("*.json"))


@pytest.mark.parametrize("path", DEMOS, ids=lambda p: p.stem)
def test_every_demo_test_round_trips_through_the_builder_the_export_and_the_import(session, path):
    """Opened in the builder and saved unchanged, a test's export is its file again (its name aside), and
    that export imports back with no change and no new version."""
    staff = build_world(session).staff[roles.SUPER_ADMIN]
    original = json.loads(path.read_text())
    original["name"] = f"Round trip {unique_email()}"
    original.pop("qualifications", None)  # the demo's qualifications are not in this world
    created = definition_files.import_file(session=session, actor_id=staff, data=json.dumps(original).encode())
    session.commit()
    assert created.outcome == "created", created.problems
    view = builder.open_builder(session=session, actor_id=staff, test_id=created.test_id)
    saved = builder.save(session=session, actor_id=staff, test_id=created.test_id, document=view.document)
    session.commit()
    assert saved.saved and not saved.new_version and saved.version == 1, saved
    _name, text = definition_files.export_test(session=session, actor_id=staff, test_id=created.test_id)
    exported = json.loads(text)
    assert {k: v for k, v in exported.items() if k != "status"} == {
        k: v for k, v in original.items() if k != "status" and v not in ({}, [], None, "")
    } | {k: exported[k] for k in exported.keys() - original.keys()}
    again = definition_files.import_file(session=session, actor_id=staff, data=text.encode())
    session.commit()
    assert again.outcome == "unchanged"
    assert [v.number for v in versions.list_versions(session=session, actor_id=staff, test_id=created.test_id)] == [1]
