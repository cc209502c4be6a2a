"""Review sessions and survey submission (portal/services/taking/review_sessions.py) on a migrated database."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlmodel import Session, func, select

from portal.models import Invite, Qualification, Review, ReviewSession, Reward, Test, TestQualification
from portal.services.definition_import import import_test
from portal.services.taking import review_sessions as rs
from tests.support.demo_survey import good_answers
from tests.support.factories import make_participant
from tests.support.races import second_waits_for_first

ROOT = Path(__file__).resolve().parents[2]
DEMO = json.loads((ROOT / "portal/data/demo_tests/01-survey.json").read_text())
T0 = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def world(session: Session):
    test = import_test(session, DEMO)
    a = make_participant(session)
    b = make_participant(session)
    invite = Invite(
        account_id=a.id, test_id=test.id, amount_cents=2500, created_at=T0, expires_at=T0 + timedelta(hours=24)
    )
    session.add(invite)
    session.commit()
    return test, a, b, invite


def counts(session: Session) -> tuple[int, int]:
    return (
        session.exec(select(func.count()).select_from(Review)).one(),
        session.exec(select(func.count()).select_from(Reward)).one(),
    )


def submit(session: Session, test: Test, account_id: int, answers: dict, submission_id: str = "sub-1", now=T0):
    return rs.submit_review(
        session=session,
        test_id=test.id,
        account_id=account_id,
        answers=answers,
        worker_data={},
        submission_id=submission_id,
        now=now,
    )


def test_start_twice_resumes_the_same_session_with_its_draft(session: Session, world):
    test, a, _b, _ = world
    first = rs.start_session(session=session, test_id=test.id, account_id=a.id, now=T0)
    assert first.respondent_key == f"account:{a.id}"
    assert rs._aware(first.deadline_at) == T0 + timedelta(seconds=3600)
    draft = {"involvement": {"type": "single-choice", "value": "decider"}}
    rs.save_draft(
        session=session,
        test_id=test.id,
        account_id=a.id,
        answers=draft,
        position={"step": 2, "subStep": 0, "navigationHistory": [0]},
        now=T0 + timedelta(minutes=5),
    )
    session.commit()
    session.expunge_all()
    again = rs.start_session(session=session, test_id=test.id, account_id=a.id, now=T0 + timedelta(minutes=10))
    assert again.id == first.id
    assert again.draft_answers == draft and again.draft_position["step"] == 2
    assert rs.pending_review(session=session, test_id=test.id, account_id=a.id, now=T0) == rs.PendingReview(True, False)


def test_after_the_deadline_saving_and_submitting_are_refused(session: Session, world):
    test, a, _b, invite = world
    rs.start_session(session=session, test_id=test.id, account_id=a.id, now=T0)
    late = T0 + timedelta(seconds=3600 + rs.GRACE_SECONDS + 1)
    with pytest.raises(rs.SessionExpiredError) as err:
        rs.save_draft(session=session, test_id=test.id, account_id=a.id, answers={}, position={}, now=late)
    assert err.value.message == "Your session has expired. You can restart the review."
    with pytest.raises(rs.SessionExpiredError):
        submit(session, test, a.id, good_answers(), now=late)
    assert counts(session) == (0, 0)
    assert session.get(Invite, invite.id).status == "open"
    assert rs.pending_review(session=session, test_id=test.id, account_id=a.id, now=late).success is False
    # Starting again is refused until the participant chooses Restart (the session-expired page).
    with pytest.raises(rs.SessionExpiredError):
        rs.start_session(session=session, test_id=test.id, account_id=a.id, now=late)
    # Restarting gives a new session with a new deadline.
    assert rs.restart(session=session, test_id=test.id, account_id=a.id, now=late) is True
    fresh = rs.start_session(session=session, test_id=test.id, account_id=a.id, now=late)
    assert rs._aware(fresh.deadline_at) == late + timedelta(seconds=3600)


def test_one_extension_moves_the_deadline(session: Session, world):
    test, a, _b, _ = world
    rs.start_session(session=session, test_id=test.id, account_id=a.id, now=T0)
    row = rs.extend_session(session=session, test_id=test.id, account_id=a.id, now=T0 + timedelta(minutes=55))
    assert rs._aware(row.deadline_at) == T0 + timedelta(seconds=3600 + rs.EXTENSION_SECONDS)
    with pytest.raises(rs.ServiceError):
        rs.extend_session(session=session, test_id=test.id, account_id=a.id, now=T0 + timedelta(minutes=56))
    # Inside the extension, a save is still accepted.
    rs.save_draft(
        session=session, test_id=test.id, account_id=a.id, answers={}, position={}, now=T0 + timedelta(minutes=65)
    )


def test_short_long_answer_and_unknown_option_are_refused_and_nothing_stored(session: Session, world):
    test, a, _b, invite = world
    rs.start_session(session=session, test_id=test.id, account_id=a.id, now=T0)
    with pytest.raises(rs.AnswersError) as err:
        submit(
            session, test, a.id, good_answers(**{"last-purchase": {"type": "long-text", "value": "too short really"}})
        )
    assert err.value.errors == {"answers.last-purchase": "Your answer is too short, please make it at least 15 words."}
    with pytest.raises(rs.AnswersError) as err:
        submit(session, test, a.id, good_answers(**{"involvement": {"type": "single-choice", "value": "abacus"}}))
    assert set(err.value.errors) == {"answers.involvement"}
    assert counts(session) == (0, 0)
    assert session.get(Invite, invite.id).status == "open"
    assert rs.pending_review(session=session, test_id=test.id, account_id=a.id, now=T0).success is True


def test_draft_shapes_and_unknown_keys_are_refused(session: Session, world):
    test, a, _b, _ = world
    rs.start_session(session=session, test_id=test.id, account_id=a.id, now=T0)
    for bad in (["x"], "x", {1: "x"}):
        with pytest.raises(rs.AnswersError):
            rs.save_draft(session=session, test_id=test.id, account_id=a.id, answers=bad, position={}, now=T0)
    with pytest.raises(rs.AnswersError) as err:
        rs.save_draft(
            session=session,
            test_id=test.id,
            account_id=a.id,
            answers={"job-title": {"value": "x" * 250_000}},
            position={},
            now=T0,
        )
    assert err.value.message == rs.MSG_TOO_LARGE
    with pytest.raises(rs.AnswersError) as err:
        rs.save_draft(session=session, test_id=test.id, account_id=a.id, answers={"bogus": {}}, position={}, now=T0)
    assert err.value.errors == {"answers.bogus": "This question is not part of the survey"}
    row = session.exec(select(ReviewSession)).one()
    assert row.draft_answers == {}


def test_another_account_cannot_save_into_or_submit_a_session(session: Session, world):
    test, a, b, invite = world
    mine = rs.start_session(session=session, test_id=test.id, account_id=a.id, now=T0)
    with pytest.raises(rs.NoSessionError):
        rs.save_draft(session=session, test_id=test.id, account_id=b.id, answers={}, position={}, now=T0)
    with pytest.raises(rs.NoSessionError):
        submit(session, test, b.id, good_answers())
    assert counts(session) == (0, 0)
    assert session.get(ReviewSession, mine.id).draft_answers == {}
    assert session.get(Invite, invite.id).status == "open"


def test_double_submit_gives_one_review_one_reward_one_completed_invite(session: Session, world):
    test, a, _b, invite = world
    start = rs.start_session(session=session, test_id=test.id, account_id=a.id, now=T0)
    first = submit(session, test, a.id, good_answers())
    session.commit()
    assert first.created is True
    again = submit(session, test, a.id, good_answers())
    assert again == rs.SubmitResult(first.review_id, first.reward_id, created=False, amount_cents=first.amount_cents)
    with pytest.raises(rs.AlreadyReviewedError) as err:
        submit(session, test, a.id, good_answers(), submission_id="another-tab")
    assert err.value.errors == {"reviewId": "Test is already reviewed"}
    assert counts(session) == (1, 1)
    reward = session.get(Reward, first.reward_id)
    assert (reward.amount_cents, reward.status, reward.test_id, reward.product_type) == (
        2500,
        "PENDING",
        test.id,
        "survey",
    )
    review = session.get(Review, first.review_id)
    assert set(review.answers) == set(good_answers()) and review.session_id == start.id
    assert session.get(Invite, invite.id).status == "completed"
    assert session.get(ReviewSession, start.id).status == "submitted"
    assert rs.pending_review(session=session, test_id=test.id, account_id=a.id, now=T0) == rs.PendingReview(False, True)
    with pytest.raises(rs.AlreadyReviewedError):
        rs.start_session(session=session, test_id=test.id, account_id=a.id, now=T0)


def test_without_invite_the_reward_is_the_test_payout_and_clear(session: Session, world):
    test, _a, b, _ = world
    rs.start_session(session=session, test_id=test.id, account_id=b.id, now=T0)
    assert rs.clear_session(session=session, test_id=test.id, account_id=b.id, now=T0) is True
    assert rs.clear_session(session=session, test_id=test.id, account_id=b.id, now=T0) is False
    with pytest.raises(rs.NoSessionError):
        submit(session, test, b.id, good_answers())
    # A cleared session (time up, or given up) offers Restart; a new session starts after it.
    with pytest.raises(rs.SessionExpiredError):
        rs.start_session(session=session, test_id=test.id, account_id=b.id, now=T0)
    assert rs.restart(session=session, test_id=test.id, account_id=b.id, now=T0) is True
    rs.start_session(session=session, test_id=test.id, account_id=b.id, now=T0)
    result = submit(session, test, b.id, good_answers())
    assert session.get(Reward, result.reward_id).amount_cents == test.payout_cents


def test_concurrent_submissions_give_one_review(db_url: str, session: Session, world):
    if not db_url.startswith("postgres"):
        pytest.skip("row locks: PostgreSQL only")
    test, a, _b, _ = world
    rs.start_session(session=session, test_id=test.id, account_id=a.id, now=T0)
    session.commit()
    first, results = second_waits_for_first(
        db_url, lambda s: submit(s, test, a.id, good_answers()), lambda s: submit(s, test, a.id, good_answers())
    )
    assert results == [
        rs.SubmitResult(first.review_id, first.reward_id, created=False, amount_cents=first.amount_cents)
    ]
    session.expire_all()
    assert counts(session) == (1, 1)


PUBLIC = "public:" + "a" * 32


def make_public(session: Session, test: Test) -> None:
    """A public qualification on the test: it can be taken without an account."""
    qualification = Qualification(name=f"Public {test.id}", is_public=True)
    session.add(qualification)
    session.flush()
    session.add(TestQualification(test_id=test.id, qualification_id=qualification.id))
    session.commit()


def test_a_public_respondent_takes_a_survey_by_its_key_without_an_account(session: Session, world):
    test, a, _b, _invite = world
    make_public(session, test)
    row = rs.start_session(session=session, test_id=test.id, account_id=None, respondent=PUBLIC, now=T0)
    assert row.account_id is None and row.respondent_key == PUBLIC
    result = rs.submit_review(
        session=session,
        test_id=test.id,
        account_id=None,
        respondent=PUBLIC,
        answers=good_answers(),
        worker_data={"firstName": "Kim"},
        submission_id="p-1",
        now=T0,
    )
    session.commit()
    review = session.get(Review, result.review_id)
    reward = session.get(Reward, result.reward_id)
    assert review.account_id is None and review.worker_data["firstName"] == "Kim"
    assert reward.account_id is None and reward.amount_cents == test.payout_cents
    # The account's own session is untouched; the key of another browser reaches nothing.
    assert rs.active_session(session=session, test_id=test.id, account_id=a.id, now=T0) is None
    other = "public:" + "b" * 32
    assert (
        rs.pending_review(session=session, test_id=test.id, account_id=None, respondent=other, now=T0).existing_review
        is False
    )


@pytest.mark.parametrize(
    "key", ["account:1", "public:short", "public:" + "A" * 32, "respondent:x:" + "g" * 32, "", None, 5]
)
def test_a_malformed_public_key_reaches_no_session(session: Session, world, key):
    test, _a, _b, _invite = world
    with pytest.raises(rs.NoSessionError):
        rs.start_session(session=session, test_id=test.id, account_id=None, respondent=key, now=T0)
    assert session.exec(select(func.count()).select_from(ReviewSession)).one() == 0
