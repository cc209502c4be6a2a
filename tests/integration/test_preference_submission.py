"""Preference submissions through the one generic submission on a migrated database: the
concept must be an option, the answer follows its rule, the server's own order is stored, and a
refusal stores nothing."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlmodel import Session, func, select

from portal.domain.taking.access import PREFERENCE_VIEW
from portal.domain.taking.kinds import preference as rules
from portal.domain.taking.kinds.base import order_seed
from portal.models import Invite, Review, Reward, Test
from portal.services.definition_import import import_test
from portal.services.taking import review_sessions as rs
from portal.services.taking.definitions import content_of
from tests.support.factories import make_participant

ROOT = Path(__file__).resolve().parents[2]
T0 = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)
LONG = "The second concept talks about real decision makers, which is who I want to hear from before I buy anything."


def demo(name: str) -> dict:
    return json.loads((ROOT / "portal/data/demo_tests" / name).read_text())


@pytest.fixture
def world(session: Session):
    test = import_test(session, demo("04-preference-image.json"))
    a, b = make_participant(session), make_participant(session)
    session.add(
        Invite(account_id=a.id, test_id=test.id, amount_cents=700, created_at=T0, expires_at=T0 + timedelta(hours=24))
    )
    session.commit()
    return test, a, b


def counts(session: Session) -> tuple[int, int]:
    return (
        session.exec(select(func.count()).select_from(Review)).one(),
        session.exec(select(func.count()).select_from(Reward)).one(),
    )


def answers(concept: str = "concept-b", text: str = LONG, order: list[str] | None = None) -> dict:
    return {
        "preferenceTestAnswers": {"selectedConcept": concept, "answer": text, "isLimited": True},
        "optionsOrder": order or [],
    }


def start(session: Session, test: Test, account_id: int) -> None:
    rs.start_session(session=session, test_id=test.id, account_id=account_id, view=PREFERENCE_VIEW, now=T0)
    session.commit()


def submit(session: Session, test: Test, account_id: int, payload: dict, now=T0 + timedelta(minutes=2)):
    return rs.submit_review(
        session=session,
        test_id=test.id,
        account_id=account_id,
        answers=payload,
        worker_data={},
        submission_id="p-1",
        view=PREFERENCE_VIEW,
        now=now,
    )


def refused(session: Session, test: Test, account_id: int, payload: dict, **kwargs) -> rs.ServiceError:
    before = counts(session)
    with pytest.raises(rs.ServiceError) as error:
        submit(session, test, account_id, payload, **kwargs)
    session.rollback()
    assert counts(session) == before
    return error.value


def test_a_preference_review_is_stored_once_with_the_servers_order(session: Session, world):
    test, a, _ = world
    start(session, test, a.id)
    first = submit(session, test, a.id, answers(order=["made", "up"]))  # the browser's order is not taken
    session.commit()
    again = submit(session, test, a.id, answers())
    session.commit()
    assert first.created and not again.created and counts(session) == (1, 1)
    review = session.get(Review, first.review_id)
    expected = rules.order(content_of(test), order_seed(f"account:{a.id}", test.id))
    assert review.options_order == expected and sorted(expected) == ["concept-a", "concept-b", "concept-c"]
    assert review.answers == {"selectedConcept": "concept-b", "answer": LONG, "isLimited": True}
    assert session.exec(select(Reward.amount_cents)).one() == 700


def test_a_concept_that_is_not_an_option_is_refused(session: Session, world):
    test, a, _ = world
    start(session, test, a.id)
    error = refused(session, test, a.id, answers(concept="concept-z"))
    assert error.errors == {"answers.preferenceTestAnswers.selectedConcept": "Please choose one of the concepts."}


def test_a_three_word_answer_on_a_limited_test_is_refused(session: Session, world):
    test, a, _ = world
    start(session, test, a.id)
    error = refused(session, test, a.id, answers(text="I like it"))
    assert error.errors == {
        "answers.preferenceTestAnswers.answer": "Your answer is too short, please make it at least 15 words."
    }
    assert refused(session, test, a.id, answers(text="  ")).errors == {
        "answers.preferenceTestAnswers.answer": "Answer is required."
    }
    assert "answers.preferenceTestAnswers" in refused(session, test, a.id, {"optionsOrder": []}).errors


def test_another_participants_session_and_a_late_submission_are_refused(session: Session, world):
    test, a, b = world
    start(session, test, a.id)
    assert isinstance(refused(session, test, b.id, answers()), rs.NoSessionError)
    late = T0 + timedelta(seconds=test.session_seconds + rs.GRACE_SECONDS + 1)
    assert isinstance(refused(session, test, a.id, answers(), now=late), rs.SessionExpiredError)


def test_a_text_preference_takes_the_options_text_and_has_no_order(session: Session):
    test = import_test(session, demo("05-preference-text.json"))
    a = make_participant(session)
    session.commit()
    start(session, test, a.id)
    assert (
        "answers.preferenceTestAnswers.selectedConcept"
        in refused(session, test, a.id, answers(concept="optionOne")).errors
    )
    result = submit(session, test, a.id, answers(concept="Stop guessing. Ask your market.", text="Short and clear."))
    session.commit()
    review = session.get(Review, result.review_id)
    assert review.options_order == [] and review.answers["isLimited"] is False
