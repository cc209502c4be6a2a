"""Highlight and pricing submissions through the one generic submission (review_sessions.submit_review)
on a migrated database: answers by block checked by the kind's rules, stored once, nothing
stored on a refusal."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlmodel import Session, func, select

from portal.domain.taking.access import HIGHLIGHT_VIEW, SURVEY_VIEW
from portal.models import Invite, Review, ReviewSession, Reward, Test
from portal.services.definition_import import import_test
from portal.services.taking import review_sessions as rs
from portal.services.taking.access import AccessDenied
from tests.support.factories import make_participant

ROOT = Path(__file__).resolve().parents[2]
T0 = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)
LONG = "The page says clearly who it is for and what it costs, which is what I look for before a trial starts."
SHORT = "Looks fine overall"


def demo(name: str) -> dict:
    return json.loads((ROOT / "portal/data/demo_tests" / name).read_text())


def text(value: str) -> dict:
    return {"type": "long-text", "value": value, "isLimited": True}


def landing_answers() -> dict:
    return {
        "first-impression": [text(LONG)],
        "highlight-1": [text(LONG)],
        "highlight-2": [{"type": "multi-choice", "value": ["speed", "reports"]}],
        "highlight-3": [text(LONG)],
        "post-test": [{"type": "rating", "value": 4}, {"type": "single-choice", "value": "demo"}],
    }


@pytest.fixture
def world(session: Session):
    test = import_test(session, demo("02-landing-page.json"))
    a, b = make_participant(session), make_participant(session)
    session.add(
        Invite(account_id=a.id, test_id=test.id, amount_cents=1300, created_at=T0, expires_at=T0 + timedelta(hours=24))
    )
    session.commit()
    return test, a, b


def counts(session: Session) -> tuple[int, int, int]:
    return (
        session.exec(select(func.count()).select_from(Review)).one(),
        session.exec(select(func.count()).select_from(Reward)).one(),
        session.exec(select(func.count()).select_from(Invite).where(Invite.status == "completed")).one(),
    )


def start(session: Session, test: Test, account_id: int, now=T0):
    row = rs.start_session(session=session, test_id=test.id, account_id=account_id, view=HIGHLIGHT_VIEW, now=now)
    session.commit()
    return row


def submit(
    session: Session, test: Test, account_id: int, answers: dict, sid: str = "sub-1", now=T0 + timedelta(minutes=5)
):
    return rs.submit_review(
        session=session,
        test_id=test.id,
        account_id=account_id,
        answers=answers,
        worker_data={},
        submission_id=sid,
        view=HIGHLIGHT_VIEW,
        signals={"precheck:page": 42},
        now=now,
    )


def refused(session: Session, test: Test, account_id: int, answers: dict, **kwargs) -> rs.ServiceError:
    before = counts(session)
    with pytest.raises(rs.ServiceError) as error:
        submit(session, test, account_id, answers, **kwargs)
    session.rollback()
    assert counts(session) == before
    return error.value


def test_a_landing_page_review_is_stored_once_with_its_reward_invite_and_signals(session: Session, world):
    test, a, _ = world
    start(session, test, a.id)
    first = submit(session, test, a.id, landing_answers())
    session.commit()
    again = submit(session, test, a.id, landing_answers())  # a double click or a retry
    session.commit()
    assert first.created and not again.created and again.review_id == first.review_id
    assert counts(session) == (1, 1, 1)
    review = session.get(Review, first.review_id)
    assert review.kind == "highlight" and review.signals == {"precheck:page": 42}
    assert [a["questionKey"] for a in review.answers["post-test"]] == ["lp-clarity", "lp-next-step"]
    reward = session.exec(select(Reward).where(Reward.review_id == review.id)).one()
    assert (reward.amount_cents, reward.status) == (1300, "PENDING")  # priced as the invite says
    assert session.exec(select(ReviewSession.status)).all() == ["submitted"]


def test_a_three_word_answer_where_fifteen_are_required_is_refused_at_its_path(session: Session, world):
    test, a, _ = world
    start(session, test, a.id)
    answers = landing_answers()
    answers["highlight-3"] = [text(SHORT)]
    error = refused(session, test, a.id, answers)
    assert error.errors == {
        "answers.highlight-3.0.value": "Your answer is too short, please make it at least 15 words."
    }


def test_an_answer_for_an_area_that_does_not_exist_is_refused(session: Session, world):
    test, a, _ = world
    start(session, test, a.id)
    answers = {**landing_answers(), "highlight-9": [text(LONG)]}
    assert refused(session, test, a.id, answers).errors == {"answers.highlight-9": "This area is not part of the test"}


def test_missing_and_extra_answers_are_refused(session: Session, world):
    test, a, _ = world
    start(session, test, a.id)
    missing = {k: v for k, v in landing_answers().items() if k != "highlight-2"}
    assert refused(session, test, a.id, missing).errors == {"answers.highlight-2.0.value": "Answer is required"}
    extra = {**landing_answers(), "highlight-1": [text(LONG), text(LONG)]}
    assert "answers.highlight-1" in refused(session, test, a.id, extra).errors
    assert refused(session, test, a.id, {"first-impression": "not a list"}).errors["answers.first-impression"]


def test_another_participants_session_cannot_be_submitted(session: Session, world):
    test, a, b = world
    start(session, test, a.id)
    # b has no session of their own: a's session is never found from b's account.
    assert isinstance(refused(session, test, b.id, landing_answers()), rs.NoSessionError)
    assert session.exec(select(ReviewSession.status)).all() == ["active"]


def test_after_the_deadline_the_submission_is_refused(session: Session, world):
    test, a, _ = world
    start(session, test, a.id)
    late = T0 + timedelta(seconds=test.session_seconds + rs.GRACE_SECONDS + 1)
    assert isinstance(refused(session, test, a.id, landing_answers(), now=late), rs.SessionExpiredError)


def test_the_survey_screen_cannot_start_or_submit_a_highlight_test(session: Session, world):
    test, a, _ = world
    with pytest.raises(AccessDenied):
        rs.start_session(session=session, test_id=test.id, account_id=a.id, view=SURVEY_VIEW, now=T0)
    session.rollback()
    start(session, test, a.id)
    before = counts(session)
    with pytest.raises(AccessDenied):
        rs.submit_review(
            session=session,
            test_id=test.id,
            account_id=a.id,
            answers=landing_answers(),
            worker_data={},
            submission_id="s",
            view=SURVEY_VIEW,
            now=T0 + timedelta(minutes=1),
        )
    session.rollback()
    assert counts(session) == before


def test_a_pricing_review_is_checked_by_the_same_rules(session: Session):
    test = import_test(session, demo("03-pricing.json"))
    a = make_participant(session)
    session.add(
        Invite(account_id=a.id, test_id=test.id, amount_cents=900, created_at=T0, expires_at=T0 + timedelta(hours=24))
    )
    session.commit()
    start(session, test, a.id)
    answers = {
        "first-impression": [text(LONG)],
        "highlight-1": [text(LONG)],
        "highlight-2": [{"type": "single-choice", "value": "maybe"}],
        "highlight-3": [{"type": "long-text", "value": "About a thousand a month", "isLimited": False}],
        "post-test": [{"type": "rating", "value": 9}],
    }
    assert refused(session, test, a.id, answers).errors == {
        "answers.post-test.0.value": "Please choose one of the values on the scale"
    }
    answers["post-test"] = [{"type": "rating", "value": 3}]
    result = submit(session, test, a.id, answers)
    session.commit()
    assert result.created and result.amount_cents == 900
    assert session.get(Review, result.review_id).answers["highlight-2"][0]["value"] == "maybe"
