"""Versions of a test's definition, on SQLite and PostgreSQL: a running landing-page test with one review
and one participant in the middle of it is re-imported without its second highlight area.

- the import answers with the warning (how many are taking it, how many submitted) and writes nothing;
- confirmed, it makes version 2; version 1 is unchanged;
- the old review still shows every question it answered (never a raw key), and exports them;
- the participant in the middle submits on version 1, answers for the removed area included;
- a new participant is taken on version 2, where that area's answers are refused;
- the versions page lists both with their counts, and shows what changed between them.
"""

from __future__ import annotations

import copy
import json

import pytest
from sqlmodel import Session, select

from portal.domain.staff import roles
from portal.domain.taking.access import HIGHLIGHT_VIEW
from portal.models import AuditEntry, Review, ReviewSession, Test, TestVersion
from portal.services.admin import areas, definition_files, editing, reviews, versions
from portal.services.definition_import import import_test
from portal.services.taking import review_sessions as rs
from portal.services.taking.definitions import load_definition
from tests.integration.test_admin_services import person
from tests.integration.test_highlight_submission import demo, landing_answers
from tests.support.factories import make_participant
from tests.support.races import all_at_once

NAME = "Demo: Landing page - Acme Analytics homepage"


def _file(document: dict) -> bytes:
    return json.dumps(document).encode()


def _without_area_two() -> dict:
    document = demo("02-landing-page.json")
    del document["selectedAreas"][1]
    return document


def _start(session: Session, test_id: int, account_id: int) -> ReviewSession:
    row = rs.start_session(session=session, test_id=test_id, account_id=account_id, view=HIGHLIGHT_VIEW)
    session.commit()
    return row


def _submit(session: Session, test_id: int, account_id: int, answers: dict, sid: str = "s1"):
    result = rs.submit_review(
        session=session,
        test_id=test_id,
        account_id=account_id,
        answers=answers,
        worker_data={},
        submission_id=sid,
        view=HIGHLIGHT_VIEW,
    )
    session.commit()
    return result


@pytest.fixture
def running(session: Session):
    """The landing-page test with a review from `done` and `mid` in the middle of it."""
    test = import_test(session, demo("02-landing-page.json"))
    session.commit()
    done, mid = make_participant(session), make_participant(session)
    _start(session, test.id, done.id)
    review_id = _submit(session, test.id, done.id, landing_answers()).review_id
    _start(session, test.id, mid.id)
    staff = person(session, role=roles.TEAM_MANAGER)
    return test.id, review_id, mid, staff


def _questions(detail: dict) -> list[str]:
    return [a["question"] for a in detail["answers"]]


def test_a_re_import_of_a_test_in_use_makes_version_two_and_every_answer_keeps_its_version(
    session: Session, running
) -> None:
    test_id, review_id, mid, staff = running
    before = reviews.review_detail(session=session, actor_id=staff.id, review_id=review_id)
    assert "Which of these features matter to you?" in _questions(before)  # the area removed below
    assert len(before["answers"]) == 6

    asked = definition_files.import_file(session=session, actor_id=staff.id, data=_file(_without_area_two()))
    session.commit()
    assert asked.outcome == "confirm" and asked.version == 1
    assert asked.warning.startswith("1 person is taking version 1 now and 1 review was submitted on it.")
    assert session.exec(select(TestVersion.number).where(TestVersion.test_id == test_id)).all() == [1]
    assert len(session.get(Test, test_id).selected_areas) == 3  # nothing written

    confirmed = definition_files.import_file(
        session=session, actor_id=staff.id, data=_file(_without_area_two()), confirm=1
    )
    session.commit()
    assert confirmed.outcome == "updated"
    one, two = session.exec(
        select(TestVersion).where(TestVersion.test_id == test_id).order_by(TestVersion.number)
    ).all()
    assert (one.number, one.sealed, len(one.columns["selected_areas"])) == (1, True, 3)
    assert (two.number, two.source, two.created_by_id, len(two.columns["selected_areas"])) == (
        2,
        "import",
        staff.id,
        2,
    )

    # The old review reads as it did: every question it answered, under its own text.
    after = reviews.review_detail(session=session, actor_id=staff.id, review_id=review_id)
    assert after["answers"] == before["answers"] and after["version"] == "1"
    name, csv_text = reviews.export_csv(session=session, actor_id=staff.id, test_id=test_id)
    header = csv_text.splitlines()[0]
    assert "test_version" in header and "highlight-2" not in header
    assert all(q in csv_text for q in _questions(before))

    # The participant in the middle submits on version 1, the removed area's answers included.
    result = _submit(session, test_id, mid.id, landing_answers(), sid="mid")
    assert result.created
    assert session.get(Review, result.review_id).version_id == one.id

    # A new participant gets version 2: the removed area's answers are refused, the rest accepted.
    new = make_participant(session)
    row = _start(session, test_id, new.id)
    assert row.version_id == two.id
    with pytest.raises(rs.AnswersError) as refused:
        _submit(session, test_id, new.id, landing_answers(), sid="new")
    session.rollback()
    assert refused.value.errors == {
        "answers.highlight-2.0.value": "This answer does not match the question",  # area 3's question now
        "answers.highlight-3": "This area is not part of the test",
    }
    shifted = landing_answers()
    shifted["highlight-2"] = shifted.pop("highlight-3")
    assert _submit(session, test_id, new.id, shifted, sid="new").created
    definition = load_definition(session=session, test_id=test_id, version_id=one.id)
    assert definition is not None and definition.version_id == one.id and len(definition.content["selectedAreas"]) == 3

    # The versions page: both, with their counts, and what changed.
    listed = versions.list_versions(session=session, actor_id=staff.id, test_id=test_id)
    assert [(v.number, v.in_progress, v.done, v.sealed) for v in listed] == [(2, 0, 1, True), (1, 0, 2, True)]
    changes = versions.compare(session=session, actor_id=staff.id, test_id=test_id, before=1, after=2)
    assert changes and all(c.path.startswith("selectedAreas") for c in changes)
    assert "Which of these features matter to you?" in json.dumps([c.before for c in changes])
    assert "Which of these features matter to you?" not in json.dumps([c.after for c in changes])


def test_an_edit_before_anyone_started_stays_in_version_one(session: Session) -> None:
    test = import_test(session, {**demo("02-landing-page.json"), "status": "draft"})
    session.commit()
    staff = person(session, role=roles.TEAM_MANAGER)
    result = definition_files.import_file(session=session, actor_id=staff.id, data=_file(_without_area_two()))
    session.commit()
    assert result.outcome == "updated"
    [version] = session.exec(select(TestVersion).where(TestVersion.test_id == test.id)).all()
    assert (version.number, version.sealed, len(version.columns["selected_areas"])) == (1, False, 2)


def test_the_area_editor_and_the_details_page_ask_before_changing_a_test_in_use(session: Session, running) -> None:
    test_id, _review_id, _mid, staff = running
    test = session.get(Test, test_id)
    fewer = copy.deepcopy(test.selected_areas[:2])
    with pytest.raises(areas.NewVersion) as asked:
        areas.save_areas(session=session, actor_id=staff.id, test_id=test_id, areas=fewer)
    assert asked.value.version == 1
    assert len(session.get(Test, test_id).selected_areas) == 3
    areas.save_areas(session=session, actor_id=staff.id, test_id=test_id, areas=fewer, confirm=1)
    session.commit()
    assert session.exec(select(TestVersion.number).where(TestVersion.test_id == test_id)).all() == [1, 2]

    # Version 2 is not in use yet: the details page changes it in place, without a warning.
    view = editing.edit_view(session=session, actor_id=staff.id, test_id=test_id)
    form = {**view.form, "frame": "Imagine you run a research team."}
    saved = editing.save_edit(session=session, actor_id=staff.id, test_id=test_id, form=form)
    session.commit()
    assert saved.saved and not saved.warning
    assert session.exec(select(TestVersion.number).where(TestVersion.test_id == test_id)).all() == [1, 2]

    # Once someone starts on version 2, the same kind of edit asks first.
    _start(session, test_id, make_participant(session).id)
    form = {**form, "frame": "Imagine you lead marketing."}
    asked_again = editing.save_edit(session=session, actor_id=staff.id, test_id=test_id, form=form)
    assert not asked_again.saved and asked_again.version == 2
    assert asked_again.warning.startswith("1 person is taking version 2 now and 0 reviews were submitted on it.")
    # What is not versioned (the payout, say) never asks.
    plain = {**view.form, "frame": "Imagine you run a research team.", "payout": "21"}
    assert editing.save_edit(session=session, actor_id=staff.id, test_id=test_id, form=plain).saved


def test_a_participant_cannot_see_or_compare_versions(session: Session, running) -> None:
    test_id, _review_id, mid, _staff = running
    from portal.services.admin.guard import StaffRefused

    with pytest.raises(StaffRefused):
        versions.list_versions(session=session, actor_id=mid.id, test_id=test_id)
    with pytest.raises(StaffRefused):
        versions.compare(session=session, actor_id=mid.id, test_id=test_id, before=1, after=1)


def test_a_session_started_at_the_edits_moment_is_never_on_a_changed_version(session: Session) -> None:
    """The edit refills the newest version only while it is not sealed: a session that sealed it first
    keeps it as it was, and the edit lands in the next version."""
    test = import_test(session, {**demo("02-landing-page.json"), "status": "running"})
    session.commit()
    row = _start(session, test.id, make_participant(session).id)  # seals version 1
    test = session.get(Test, test.id)
    test.frame_of_mind = "Changed behind the warning's back (a script)."
    session.add(test)
    session.commit()
    numbers = session.exec(
        select(TestVersion.number, TestVersion.columns)
        .where(TestVersion.test_id == test.id)
        .order_by(TestVersion.number)
    ).all()
    assert [n for n, _ in numbers] == [1, 2]
    assert numbers[0][1]["frame_of_mind"] != numbers[1][1]["frame_of_mind"]
    assert (
        session.get(ReviewSession, row.id).version_id
        == session.exec(select(TestVersion.id).where(TestVersion.test_id == test.id, TestVersion.number == 1)).one()
    )


def test_fifty_identical_confirmed_saves_make_one_new_version_and_one_audit_row(session: Session, db_url: str, running):
    test_id, _review_id, _mid, staff = running
    document = _without_area_two()
    staff_id = staff.id

    def save(s: Session) -> bool:
        return versions.save_document(
            session=s, actor_id=staff_id, test_id=test_id, document=document, confirm=1, source="builder"
        ).saved

    results = all_at_once(db_url, [save] * 50)
    assert results == [True] * 50, [r for r in results if r is not True][:3]
    session.expire_all()
    rows = session.exec(select(TestVersion).where(TestVersion.test_id == test_id).order_by(TestVersion.number)).all()
    assert [(v.number, len(v.columns["selected_areas"])) for v in rows] == [(1, 3), (2, 2)]
    edits = session.exec(
        select(AuditEntry).where(AuditEntry.action == "test.edit", AuditEntry.target_id == str(test_id))
    ).all()
    assert [(e.before["version"], e.after["version"]) for e in edits] == [(1, 2)]


def test_fifty_participants_starting_while_staff_edit_never_find_their_version_changed(
    session: Session, db_url: str
) -> None:
    """49 participants start a test nobody has started yet while staff save a new frame of mind (no warning:
    version 1 is not in use when the save is asked). Whichever comes first, a version someone started on
    holds what it held when they started: either the edit refilled version 1 before anyone sealed it, or it
    made version 2 and version 1 kept the old frame."""
    test = import_test(session, {**demo("02-landing-page.json"), "name": "Race of versions", "status": "running"})
    session.commit()
    staff = person(session, role=roles.TEAM_MANAGER)
    people = [make_participant(session).id for _ in range(49)]
    old_frame, new_frame = test.frame_of_mind, "Imagine you are replacing your analytics tool this quarter."
    test_id, staff_id = test.id, staff.id
    edited = {**demo("02-landing-page.json"), "name": "Race of versions", "frameOfMind": new_frame}

    def start(account_id: int):
        return lambda s: rs.start_session(session=s, test_id=test_id, account_id=account_id, view=HIGHLIGHT_VIEW).id

    def edit(s: Session) -> str:
        return versions.save_document(session=s, actor_id=staff_id, test_id=test_id, document=edited).warning

    results = all_at_once(db_url, [edit, *(start(a) for a in people)])
    assert all(isinstance(r, int) for r in results[1:]), [r for r in results[1:] if not isinstance(r, int)][:3]
    session.expire_all()
    by_number = {v.number: v for v in session.exec(select(TestVersion).where(TestVersion.test_id == test_id)).all()}
    frames = {n: v.columns["frame_of_mind"] for n, v in by_number.items()}
    sessions = session.exec(select(ReviewSession).where(ReviewSession.test_id == test_id)).all()
    assert len(sessions) == 49 and all(by_number[1].sealed or n != 1 for n in by_number)
    if results[0] == "":  # the edit was saved without a warning
        assert frames in ({1: new_frame}, {1: old_frame, 2: new_frame}), frames
    else:  # a participant sealed version 1 before the edit was asked: it asked first and wrote nothing
        assert frames == {1: old_frame}
    assert session.get(Test, test_id).frame_of_mind == frames[max(frames)]
    ids = {v.id for v in by_number.values()}
    assert all(row.version_id in ids for row in sessions)
