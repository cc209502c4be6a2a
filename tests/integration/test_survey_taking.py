"""What the survey screens ask of the server (portal/services/taking/steps.py): who is asking,
public respondents only on public tests, personal info checked again at submission."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlmodel import Session, func, select

from portal.models import Review, ReviewSession, Reward
from portal.services.definition_import import import_test
from portal.services.errors import ServiceError
from portal.services.seeding import seed_reference
from portal.services.sessions import create_session
from portal.services.taking import definitions as test_definitions
from portal.services.taking import steps as test_taking
from tests.support.factories import make_participant

ROOT = Path(__file__).resolve().parents[2]
PUBLIC_KEY = "public:" + "c" * 32
ANSWERS = {
    "dev-language": {"type": "single-choice", "value": "python"},
    "dev-ci": {"type": "short-text", "value": "GitHub Actions"},
}
DETAILS = {
    "firstName": "Robin",
    "jobTitle": "Staff engineer",
    "email": "robin@example.org",
    "linkedin": "https://www.linkedin.com/in/robin-dev",
}


def demo(session: Session, name: str):
    test_definitions._cache.clear()  # each database starts its ids again
    return import_test(session, json.loads((ROOT / "portal/data/demo_tests" / name).read_text()))


@pytest.fixture
def public_test(session: Session):
    seed_reference(session)
    test = demo(session, "08-public-qualification.json")
    session.commit()
    return test


def count(session: Session, model) -> int:
    return session.exec(select(func.count()).select_from(model)).one()


def test_a_public_respondent_submits_with_personal_info(session: Session, public_test):
    entry = test_taking.enter(session=session, token=None, view="survey", test_id=public_test.id, respondent=PUBLIC_KEY)
    assert entry.who.public and entry.active is None and not entry.reviewed
    assert test_taking.personal_fields(entry.definition, entry.who) == ("firstName", "jobTitle", "email", "linkedin")
    test_taking.start(session=session, token=None, view="survey", test_id=public_test.id, respondent=PUBLIC_KEY)
    result = test_taking.submit(
        session=session,
        token=None,
        view="survey",
        test_id=public_test.id,
        respondent=PUBLIC_KEY,
        answers=ANSWERS,
        worker_data=DETAILS,
        submission_id="s-1",
    )
    session.commit()
    review = session.get(Review, result.review_id)
    assert review.account_id is None and review.respondent_key == PUBLIC_KEY
    assert review.worker_data["firstName"] == "Robin" and review.worker_data["submissionId"] == "s-1"
    assert count(session, Reward) == 1


@pytest.mark.parametrize(
    ("details", "field"),
    [
        ({**DETAILS, "firstName": "  "}, "workerData.firstName"),
        ({**DETAILS, "email": "not-an-email"}, "workerData.email"),
        ({**DETAILS, "linkedin": "https://example.com/robin"}, "workerData.linkedin"),
        ({**DETAILS, "isAdmin": "yes"}, "workerData._global"),
        ("Robin", "workerData._global"),
    ],
)
def test_personal_info_is_checked_again_at_submission_and_nothing_is_stored(
    session: Session, public_test, details, field
):
    test_taking.start(session=session, token=None, view="survey", test_id=public_test.id, respondent=PUBLIC_KEY)
    session.commit()
    with pytest.raises(ServiceError) as refused:
        test_taking.submit(
            session=session,
            token=None,
            view="survey",
            test_id=public_test.id,
            respondent=PUBLIC_KEY,
            answers=ANSWERS,
            worker_data=details,
            submission_id="s-1",
        )
    assert field in (refused.value.errors or {})
    session.rollback()
    assert count(session, Review) == 0 and count(session, Reward) == 0


def test_a_public_key_opens_nothing_on_a_members_test(session: Session):
    members = demo(session, "01-survey.json")
    session.commit()
    with pytest.raises(test_taking.SignedOutError):
        test_taking.start(session=session, token=None, view="survey", test_id=members.id, respondent=PUBLIC_KEY)
    assert count(session, ReviewSession) == 0


def test_a_signed_in_participant_is_known_by_the_session_token_not_by_a_respondent_key(session: Session, public_test):
    account = make_participant(session)
    token = create_session(session=session, account_id=account.id)
    session.commit()
    row = test_taking.start(session=session, token=token, view="survey", test_id=public_test.id, respondent=PUBLIC_KEY)
    assert row.account_id == account.id and row.respondent_key == f"account:{account.id}"
    # A signed-in participant has no personal-info step: the portal knows them.
    entry = test_taking.enter(session=session, token=token, view="survey", test_id=public_test.id)
    assert test_taking.personal_fields(entry.definition, entry.who) == ()
    result = test_taking.submit(
        session=session,
        token=token,
        view="survey",
        test_id=public_test.id,
        answers=ANSWERS,
        worker_data={"firstName": "Not stored"},
        submission_id="s-2",
    )
    session.commit()
    assert session.get(Review, result.review_id).worker_data == {"submissionId": "s-2"}


def test_a_revoked_or_unknown_token_is_signed_out(session: Session, public_test):
    members = demo(session, "01-survey.json")
    session.commit()
    with pytest.raises(test_taking.SignedOutError):
        test_taking.enter(session=session, token="not-a-token", view="survey", test_id=members.id)


def test_a_public_respondent_takes_a_highlight_test_with_the_same_end_step(session: Session):
    """The personal-info end step and the public respondent's session are the same for every kind."""
    seed_reference(session)
    doc = json.loads((ROOT / "portal/data/demo_tests/11-standard.json").read_text())
    test_definitions._cache.clear()
    test = import_test(session, {**doc, "panel": "custom", "qualifications": ["Software developers (public)"]})
    session.commit()
    mine = {"session": session, "token": None, "view": "highlight", "test_id": test.id, "respondent": PUBLIC_KEY}
    entry = test_taking.enter(**mine)
    assert entry.definition.kind == "highlight" and [q["key"] for q in entry.definition.questions] == ["st-testimonial"]
    assert test_taking.personal_fields(entry.definition, entry.who) == ("firstName", "jobTitle", "email", "linkedin")
    with pytest.raises(ServiceError):  # the survey's screen cannot start it
        test_taking.start(**{**mine, "view": "survey"})
    session.rollback()
    test_taking.start(**mine)
    session.commit()
    answers = {"highlight-1": [{"type": "rating", "value": 5}]}
    with pytest.raises(ServiceError) as missing:
        test_taking.submit(**mine, answers=answers, worker_data={"firstName": "Robin"}, submission_id="h-1")
    assert "workerData.email" in missing.value.errors
    session.rollback()
    result = test_taking.submit(**mine, answers=answers, worker_data=DETAILS, submission_id="h-1")
    session.commit()
    review = session.get(Review, result.review_id)
    assert review.kind == "highlight" and review.worker_data["jobTitle"] == "Staff engineer"
    assert review.answers["highlight-1"][0]["value"] == 5


def _statements(session: Session) -> list[str]:
    from sqlalchemy import event

    seen: list[str] = []
    event.listen(
        session.get_bind(), "before_cursor_execute", lambda _conn, _cur, statement, *_rest: seen.append(statement)
    )
    return seen


def test_the_rating_page_resolves_the_token_once_and_enters_with_its_own_decision(session: Session, public_test):
    """services.rating_page.open_page: the header, the access decision and the entry of one signed-in
    participant read the session once; the entry is the one test_taking.enter makes on its own."""
    from portal.services.taking.rating_page import open_page

    account = make_participant(session)
    token = create_session(session=session, account_id=account.id)
    session.commit()
    seen = _statements(session)
    opened = open_page(session=session, token=token, test_id=str(public_test.id), enter_views=frozenset({"survey"}))
    assert opened.user.account_id == account.id and opened.load.view == "survey"
    assert sum("FROM auth_session" in s for s in seen) == 1
    alone = test_taking.enter(session=session, token=token, view="survey", test_id=public_test.id)
    assert (opened.entry.who, opened.entry.active, opened.entry.reviewed) == (alone.who, alone.active, alone.reviewed)
    assert opened.entry.definition.questions == alone.definition.questions


def test_the_rating_page_reads_its_rows_in_four_statements_and_enters_the_session_in_progress(
    session: Session, public_test
):
    """A participant coming back to a test they started: the user (with their profile), their flags, the
    test with every row the access decision reads, and the session in progress, one statement each (the
    test's definition is kept per process); the entry holds that session and its draft, as
    test_taking.enter finds it on its own."""
    from portal.services.taking.rating_page import open_page

    account = make_participant(session)
    token = create_session(session=session, account_id=account.id)
    started = test_taking.start(session=session, token=token, test_id=public_test.id, view="survey")
    started.draft_answers = {"q1": {"value": "kept"}}
    session.commit()
    test_taking.definition(session=session, test_id=public_test.id)  # kept per process, as the first page load keeps it
    session.expunge_all()
    seen = _statements(session)
    opened = open_page(session=session, token=token, test_id=public_test.id, enter_views=frozenset({"survey"}))
    assert opened.load.session_id == started.id and opened.entry.active.id == started.id
    assert opened.entry.active.draft_answers == {"q1": {"value": "kept"}}
    assert len([s for s in seen if s.lstrip().upper().startswith("SELECT")]) == 4, "\n\n".join(s[:160] for s in seen)
    session.expunge_all()
    alone = test_taking.enter(session=session, token=token, view="survey", test_id=public_test.id)
    assert alone.active.id == started.id


def test_a_decision_of_another_test_or_without_a_participant_does_not_stand_in(session: Session, public_test):
    """test_taking.enter's `decided` stands in only for the signed-in caller's decision on the same test:
    a public respondent, or a decision of another test, is decided again (and refused here)."""
    from portal.services.taking.rating_page import open_test

    members = demo(session, "01-survey.json")
    members.status = "removed"  # its own decision refuses everyone
    account = make_participant(session)
    token = create_session(session=session, account_id=account.id)
    session.commit()
    load = open_test(session=session, token=token, test_id=public_test.id)
    assert load.view == "survey"
    with pytest.raises(test_taking.SignedOutError):  # members only: a public respondent is refused
        test_taking.enter(
            session=session, token=None, view="survey", test_id=members.id, respondent=PUBLIC_KEY, decided=load
        )
    with pytest.raises(ServiceError):  # the public test's decision does not open the removed one
        test_taking.enter(session=session, token=token, view="survey", test_id=members.id, decided=load)
