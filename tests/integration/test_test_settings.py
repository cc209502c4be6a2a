"""A new test, a copy of one, its settings, its schedule, stop and resume, and its exclusion window, on a
migrated database (SQLite and PostgreSQL): 'New test' makes a draft with its kind's starting definition in
the builder's working copy; 'Duplicate' copies definition, settings and qualifications and nothing taken;
a draft with problems saves its settings but cannot leave draft; a scheduled test starts once at its time
however many launch rounds run at the same moment; stop and resume expect the status shown; the invite
page's count and the sender both leave out who took a test within the window."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import func, select
from sqlmodel import Session

from portal.domain.staff import roles
from portal.domain.staff.editing import NOT_COMPLETE, SCHEDULE_PAST
from portal.domain.staff.new_tests import NAME_NEEDED, STARTING_CONTENT
from portal.models import Invite, Review, ReviewSession, Test, TestVersion
from portal.models._base import utcnow
from portal.services.admin import editing, launches, tests
from portal.services.admin.guard import StaffRefused
from portal.services.definition_import import document_for, import_test
from portal.services.errors import ServiceError
from portal.services.seeding import seed_reference
from tests.integration.test_admin_services import a_review, a_test, audit_rows, person
from tests.integration.test_admin_services import invitee as participant
from tests.support.factories import unique_email
from tests.support.races import all_at_once

DEMO = Path(__file__).resolve().parents[2] / "portal" / "data" / "demo_tests"
TM = roles.TEAM_MANAGER


@pytest.fixture
def admin(session: Session) -> int:
    seed_reference(session)
    session.commit()
    return person(session, role=TM).id


def new(session: Session, admin: int, product_type: str = "survey", name: str | None = None) -> Test:
    made = tests.create_test(
        session=session,
        actor_id=admin,
        form={"name": name or f"New {unique_email()}", "productType": product_type, "panel": "b2b"},
    )
    session.commit()
    assert not made.problems, made.problems
    return session.get(Test, made.test_id)


def complete(session: Session, status: str = "draft") -> Test:
    """A test whose definition has no problem (the demo survey)."""
    doc = json.loads((DEMO / "01-survey.json").read_text())
    doc.update(name=f"Complete {unique_email()}", status=status)
    test = import_test(session, doc)
    session.commit()
    return test


def save(session: Session, admin: int, test: Test, **changes: str) -> editing.SaveResult:
    form = {**editing.edit_view(session=session, actor_id=admin, test_id=test.id).form, **changes}
    result = editing.save_edit(session=session, actor_id=admin, test_id=test.id, form=form)
    session.commit()
    return result


# --- New test --------------------------------------------------------------------------------------


@pytest.mark.parametrize("product_type", ["survey", "landing-page", "pricing-test", "preference-test", "video-test"])
def test_a_new_test_is_a_draft_with_its_kind_s_starting_definition(session, admin, product_type):
    test = new(session, admin, product_type)
    assert (test.status, test.product_type, test.panel) == ("draft", product_type, "b2b")
    assert test.survey == {} and test.questions == {} and test.preference_test == {}  # the kind's empty content
    draft = test.draft_document
    assert draft["name"] == test.name and draft["productType"] == product_type and draft["status"] == "draft"
    kind_content = next(c for k, c in STARTING_CONTENT.items() if all(draft.get(f) == v for f, v in c.items()))
    assert kind_content
    [entry] = [r for r in audit_rows(session, "test.create") if r.target_id == str(test.id)]
    assert entry.actor_id == admin and entry.after["productType"] == product_type
    [version] = session.execute(select(TestVersion).where(TestVersion.test_id == test.id)).scalars().all()
    assert (version.number, version.source, version.created_by_id) == (1, "new", admin)


def test_the_new_test_form_names_its_problems_and_writes_nothing(session, admin):
    taken = new(session, admin)
    before = session.execute(select(func.count()).select_from(Test)).scalar_one()
    bad = tests.create_test(session=session, actor_id=admin, form={"name": " ", "productType": "x", "panel": "b2b"})
    assert bad.problems == {"name": NAME_NEEDED, "productType": "Choose the product type."}
    same = tests.create_test(
        session=session, actor_id=admin, form={"name": taken.name, "productType": "survey", "panel": "b2b"}
    )
    assert same.problems == {"name": editing.NAME_TAKEN}
    for hostile in (None, [], "x", {"name": {"$gt": ""}}):
        assert tests.create_test(session=session, actor_id=admin, form=hostile).problems
    session.commit()
    assert session.execute(select(func.count()).select_from(Test)).scalar_one() == before
    with pytest.raises(StaffRefused):
        tests.create_test(session=session, actor_id=person(session).id, form={"name": "x"})


def test_a_new_draft_saves_its_settings_but_cannot_launch_until_its_content_is_complete(session, admin):
    test = new(session, admin, "landing-page")
    result = save(session, admin, test, payout="30", exclusion="60", limit="100")
    assert result.saved, result.problems
    assert result.view.content == [  # the saved definition (the starting one is in the builder's working copy)
        "url: is required",
        "screenshotUrl: is required",
        "questions: a highlight test needs at least one question (in a block or a selected area)",
    ]
    session.expire_all()
    test = session.get(Test, test.id)
    assert (test.payout_cents, test.exclusion_days, test.participant_limit) == (3000, 60, 100)
    # The builder's working copy keeps the settings saved here (its content untouched).
    assert test.draft_document["payoutCents"] == 3000 and test.draft_document["exclusionDays"] == 60
    assert test.draft_document["questions"] == STARTING_CONTENT["highlight"]["questions"]
    refused = save(session, admin, test, status="running")
    assert not refused.saved
    assert refused.problems["status"] == NOT_COMPLETE.format(count="3 problems", status="running")
    session.expire_all()
    assert session.get(Test, test.id).status == "draft"


# --- Duplicate ------------------------------------------------------------------------------------


def test_duplicate_copies_definition_settings_and_qualifications_never_what_was_taken(session, admin):
    doc = json.loads((DEMO / "08-public-qualification.json").read_text())
    doc["name"] = f"Original {unique_email()}"
    doc["exclusionDays"] = 30
    original = import_test(session, doc)
    session.commit()
    a_review(session, original, participant(session))
    session.add(
        Invite(
            account_id=participant(session).id,
            test_id=original.id,
            amount_cents=1000,
            status="open",
            expires_at=utcnow() + timedelta(hours=24),
        )
    )
    session.commit()

    first = tests.duplicate_test(session=session, actor_id=admin, test_id=original.id)
    second = tests.duplicate_test(session=session, actor_id=admin, test_id=original.id)
    session.commit()

    assert (first.name, second.name) == (f"Copy of {original.name}", f"Copy of {original.name} (2)")
    copy = session.get(Test, first.test_id)
    copied_doc, original_doc = document_for(session, copy), document_for(session, original)
    assert copied_doc["status"] == "draft" and copied_doc["qualifications"] == original_doc["qualifications"] != []
    assert {k: v for k, v in copied_doc.items() if k not in ("name", "status")} == {
        k: v for k, v in original_doc.items() if k not in ("name", "status")
    }
    assert copy.launched_at is None and copy.draft_document is None and copy.exclusion_days == 30
    for model in (Review, Invite, ReviewSession):
        assert (
            session.execute(select(func.count()).select_from(model).where(model.test_id == copy.id)).scalar_one() == 0
        )
    rows = [r for r in audit_rows(session, "test.duplicate") if r.before == {"copyOf": original.id}]
    assert len(rows) == 2
    with pytest.raises(ServiceError):
        tests.duplicate_test(session=session, actor_id=admin, test_id=10**9)


def test_a_copy_s_name_stays_unique_with_wildcards_in_the_name(session, admin):
    original = new(session, admin, name=f"50% off_{unique_email()}")
    names = [tests.duplicate_test(session=session, actor_id=admin, test_id=original.id).name for _ in range(3)]
    session.commit()
    assert names == [f"Copy of {original.name}", f"Copy of {original.name} (2)", f"Copy of {original.name} (3)"]


# --- schedule and launch ------------------------------------------------------------------------------


def schedule(session: Session, admin: int, test: Test, minutes: int = 10) -> None:
    when = utcnow() + timedelta(minutes=minutes)
    result = save(
        session,
        admin,
        test,
        status="scheduled",
        **{"scheduled.date": when.strftime("%Y-%m-%d"), "scheduled.time": when.strftime("%H:%M")},
    )
    assert result.saved, result.problems


def test_scheduling_needs_a_future_time_and_is_shown_in_utc(session, admin):
    test = complete(session)
    past = utcnow() - timedelta(hours=1)
    refused = save(
        session,
        admin,
        test,
        status="scheduled",
        **{"scheduled.date": past.strftime("%Y-%m-%d"), "scheduled.time": past.strftime("%H:%M")},
    )
    assert refused.problems == {"scheduled.time": SCHEDULE_PAST}
    schedule(session, admin, test, minutes=90)
    view = editing.edit_view(session=session, actor_id=admin, test_id=test.id)
    assert view.status == "scheduled" and view.scheduled.endswith(" UTC")
    [entry] = [r for r in audit_rows(session, "test.status") if r.target_id == str(test.id)]
    assert entry.after["status"] == "scheduled" and entry.after["scheduledAt"]
    # Back to draft: the schedule is dropped.
    assert save(session, admin, test, status="draft").saved
    session.expire_all()
    assert session.get(Test, test.id).scheduled_at is None


def test_a_scheduled_test_starts_at_its_time_once_with_fifty_rounds_at_the_same_moment(session, db_url, admin):
    test, other = complete(session), complete(session)
    schedule(session, admin, test, minutes=10)
    schedule(session, admin, other, minutes=120)  # not due yet
    assert launches.launch_scheduled(session=session) == []  # before its time: nothing
    session.commit()
    at = utcnow() + timedelta(minutes=11)

    results = all_at_once(db_url, [lambda s: launches.launch_scheduled(session=s, now=at) for _ in range(50)])

    assert all(isinstance(r, list) for r in results), [r for r in results if not isinstance(r, list)]
    assert sorted(i for r in results for i in r) == [test.id]  # launched by exactly one round
    session.expire_all()
    launched, waiting = session.get(Test, test.id), session.get(Test, other.id)
    assert launched.status == "running" and launched.launched_at is not None
    assert waiting.status == "scheduled" and waiting.launched_at is None
    rows = [r for r in audit_rows(session, "test.launch") if r.target_id == str(test.id)]
    assert len(rows) == 1 and rows[0].actor_email == "system" and rows[0].before == {"status": "scheduled"}
    assert launches.launch_scheduled(session=session, now=at) == []  # a later round finds nothing


# --- stop and resume --------------------------------------------------------------------------------


def test_stop_and_resume_expect_the_status_shown_and_change_it_once(session, db_url, admin):
    test = complete(session, "running")
    view = editing.stop_or_resume(session=session, actor_id=admin, test_id=test.id, expected="running", to="stopped")
    session.commit()
    assert view.status == "stopped"
    with pytest.raises(ServiceError) as moved:  # a second tab still showing 'running'
        editing.stop_or_resume(session=session, actor_id=admin, test_id=test.id, expected="running", to="stopped")
    assert moved.value.message == editing.STATUS_MOVED.format(status="running")
    session.rollback()
    with pytest.raises(ServiceError):
        editing.stop_or_resume(session=session, actor_id=admin, test_id=test.id, expected="stopped", to="draft")
    session.rollback()
    test_id = test.id  # read here: the threads below must not touch this session

    results = all_at_once(
        db_url,
        [
            lambda s: (
                editing.stop_or_resume(
                    session=s, actor_id=admin, test_id=test_id, expected="stopped", to="running"
                ).status
            )
            for _ in range(10)
        ],
    )
    assert results.count("running") == 1, results
    assert all(isinstance(r, ServiceError) for r in results if r != "running"), results
    session.expire_all()
    assert session.get(Test, test.id).status == "running"
    actions = [(r.before, r.after) for r in audit_rows(session, "test.status") if r.target_id == str(test.id)]
    assert actions == [({"status": "running"}, {"status": "stopped"}), ({"status": "stopped"}, {"status": "running"})]


# --- the exclusion window ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("days", "kept_out"),
    [(0, set()), (30, {"recent"}), (90, {"recent", "months"}), (-1, {"recent", "months", "long_ago"})],
)
def test_the_exclusion_window_keeps_out_who_took_a_test_in_it_in_the_count_and_the_send(session, days, kept_out):
    from tests.integration.test_invite_audience import audience, send, sent_invites

    manager = participant(session, role=TM)
    test = a_test(session, exclusion_days=days)
    elsewhere = a_test(session)
    people = {
        "recent": participant(session),
        "months": participant(session),
        "long_ago": participant(session),
        "never": participant(session),
    }
    a_review(session, elsewhere, people["recent"], age_days=10)
    a_review(session, elsewhere, people["months"], age_days=75)
    a_review(session, elsewhere, people["long_ago"], age_days=400)
    w = {"manager": manager, "test": test}
    criteria = {"ids": [p.id for p in people.values()]}

    found = audience(session, w, criteria)
    assert found.excluded == len(kept_out)
    assert found.to_invite == 4 - len(kept_out)
    send(session, w, criteria)
    invited = set(sent_invites(session, test.id))
    assert invited == {p.id for name, p in people.items() if name not in kept_out}


def test_two_launch_scheduled_processes_at_once_launch_each_due_test_once(session, db_url, admin):
    import os
    import subprocess
    import sys

    due = [complete(session) for _ in range(3)]
    for test in due:
        test.status, test.scheduled_at = "scheduled", utcnow() - timedelta(minutes=1)
        session.add(test)
    session.commit()
    env = {**os.environ, "DATABASE_URL": db_url}
    command = [sys.executable, "-m", "portal.cli", "launch-scheduled"]
    root = Path(__file__).resolve().parents[2]
    workers = [
        subprocess.Popen(command, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    outputs = [worker.communicate(timeout=120) for worker in workers]
    assert [worker.returncode for worker in workers] == [0, 0], outputs
    said = [out.strip() for out, _ in outputs]
    assert all(line.startswith("Launched ") for line in said), said
    assert sum(int(line.split()[1]) for line in said) == 3, said  # between them, each due test once
    session.expire_all()
    assert {session.get(Test, t.id).status for t in due} == {"running"}
    launched = [r.target_id for r in audit_rows(session, "test.launch")]
    assert sorted(launched) == sorted(str(t.id) for t in due)  # one audit row per test
