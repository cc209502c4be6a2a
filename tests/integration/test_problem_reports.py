"""'Report a problem' (issue 38, item 4) on SQLite and PostgreSQL: only someone taking the test reports (others and
bad input change nothing); staff are e-mailed; two reporters pause a small test, once even under 50 reports at once;
a paused test refuses submissions but keeps drafts; resuming moves open sessions' deadlines on by the pause; closing
pays the reporters pro rata exactly once under 50 closes at once; only staff who manage tests resume or close."""

from __future__ import annotations

from datetime import UTC, timedelta

import pytest
from sqlalchemy import func, select
from sqlmodel import Session

from portal.domain import problem_reports as rules
from portal.domain.staff import roles
from portal.domain.taking import access
from portal.models import AuditEntry, Invite, OutboxEmail, ProblemReport, ReviewSession, Reward, Test
from portal.models._base import utcnow
from portal.services import problem_reports
from portal.services.admin import problem_reports as staff_reports
from portal.services.admin import reviews as staff_reviews
from portal.services.admin.guard import StaffRefused
from portal.services.errors import ServiceError
from portal.services.sessions import create_session
from portal.services.taking import review_sessions
from portal.services.taking.access import AccessDenied
from tests.integration.test_admin_services import a_test, fresh, person
from tests.support.races import all_at_once

TO = roles.TEAM_OWNER
SUBMISSION = "0f8fad5b-d9cb-469f-a165-70867728950e"


def taker(session: Session, test: Test, *, started_minutes_ago: float = 5, cents: int = 3000):
    """A participant with a live sign-in (its token) and an active session of `test` started a while ago."""
    who = person(session)
    token = create_session(session, account_id=who.id)
    started = utcnow() - timedelta(minutes=started_minutes_ago)
    session.add(
        Invite(
            account_id=who.id,
            test_id=test.id,
            status="open",
            amount_cents=cents,
            created_at=started,
            expires_at=started + timedelta(hours=24),
        )
    )
    row = ReviewSession(
        test_id=test.id,
        account_id=who.id,
        respondent_key=f"account:{who.id}",
        started_at=started,
        deadline_at=started + timedelta(seconds=test.session_seconds),
        draft_answers={"q1": {"value": "kept"}},
    )
    session.add(row)
    session.commit()
    return who, token, row.id


def report(session: Session, token: str, test: Test, category: str = "timer", text: str = "The clock jumped."):
    paused = problem_reports.report(session, token=token, test_id=test.id, category=category, text=text)
    session.commit()
    return paused


def test_only_someone_taking_the_test_reports_and_staff_are_e_mailed(session):
    owner = person(session, role=TO)
    test = a_test(session, participant_limit=10, session_seconds=900)
    other_test = a_test(session)
    _who, token, _sid = taker(session, test)
    stranger = person(session)
    stranger_token = create_session(session, account_id=stranger.id)
    session.commit()
    for call in (
        lambda: problem_reports.report(session, token=stranger_token, test_id=test.id, category="timer", text="x"),
        lambda: problem_reports.report(session, token=None, test_id=test.id, category="timer", text="x"),
        lambda: problem_reports.report(session, token=token, test_id=other_test.id, category="timer", text="x"),
        lambda: problem_reports.report(session, token=token, test_id=str(test.id), category="timer", text="x"),
        lambda: problem_reports.report(session, token=token, test_id=10**15, category="timer", text="x"),
        lambda: problem_reports.report(session, token=token, test_id=test.id, category="nonsense", text="x"),
        lambda: problem_reports.report(session, token=token, test_id=test.id, category="timer", text="  "),
    ):
        with pytest.raises(ServiceError):
            call()
        session.rollback()
    assert session.execute(select(func.count()).select_from(ProblemReport)).scalar_one() == 0

    assert report(session, token, test, "question", "Question 2 has no right answer.") is False
    mails = session.execute(select(OutboxEmail).where(OutboxEmail.to_address == owner.email)).scalars().all()
    assert [m.subject for m in mails] == [f"Problem reported on {test.name}: A question is unclear or wrong"]
    assert (
        "Question 2 has no right answer." in mails[0].body_text
        and f"/admin/reports?test={test.id}" in mails[0].body_text
    )
    assert fresh(session, Test, test.id).status == "running"  # one reporter of ten: not yet


def test_two_reporters_pause_a_small_test_once_under_fifty_reports_at_once(session, db_url):
    test = a_test(session, participant_limit=10, session_seconds=900)
    first, first_token, first_session = taker(session, test)
    assert report(session, first_token, test) is False
    assert report(session, first_token, test, "page", "Again") is False  # the same person twice is one reporter
    _second, second_token, _ = taker(session, test)

    results = all_at_once(
        db_url,
        [lambda s: problem_reports.report(s, token=second_token, test_id=test.id, category="timer", text="Stuck")] * 50,
    )
    assert results.count(True) == 1
    paused = fresh(session, Test, test.id)
    assert paused.status == rules.PAUSED and paused.paused_at is not None
    assert (
        session.execute(
            select(func.count())
            .select_from(AuditEntry)
            .where(AuditEntry.action == "test.paused", AuditEntry.target_id == str(test.id))
        ).scalar_one()
        == 1
    )
    # Paused: a draft is still kept; a submission is refused; a third participant cannot start.
    review_sessions.save_draft(
        session, test_id=test.id, account_id=first.id, answers={"q1": {"value": "still kept"}}, position={}
    )
    session.commit()
    assert fresh(session, ReviewSession, first_session).draft_answers == {"q1": {"value": "still kept"}}
    with pytest.raises(AccessDenied) as refused:
        review_sessions.submit_review(
            session, test_id=test.id, account_id=first.id, answers={}, worker_data={}, submission_id=SUBMISSION
        )
    assert refused.value.state == access.TEST_PAUSED
    session.rollback()
    assert session.execute(select(func.count()).select_from(Reward).where(Reward.test_id == test.id)).scalar_one() == 0


def test_resuming_moves_open_deadlines_on_by_the_pause_once(session, db_url):
    staff = person(session, role=TO)
    test = a_test(session, participant_limit=10, session_seconds=900)
    _a, a_token, a_session = taker(session, test)
    _b, b_token, b_session = taker(session, test)
    report(session, a_token, test)
    report(session, b_token, test)
    before = {sid: fresh(session, ReviewSession, sid).deadline_at for sid in (a_session, b_session)}
    # Paused for ten minutes.
    session.execute(
        Test.__table__.update().where(Test.id == test.id).values(paused_at=utcnow() - timedelta(minutes=10))
    )
    session.commit()

    results = all_at_once(db_url, [lambda s: staff_reports.resume(s, actor_id=staff.id, test_id=test.id)] * 50)
    assert [r for r in results if isinstance(r, int)] == [2]
    assert fresh(session, Test, test.id).status == "running"
    for sid, deadline in before.items():
        moved = fresh(session, ReviewSession, sid).deadline_at
        gained = (moved.replace(tzinfo=UTC) - deadline.replace(tzinfo=UTC)).total_seconds()
        assert 600 <= gained < 660
    handled = session.execute(select(ProblemReport.outcome).where(ProblemReport.test_id == test.id)).scalars().all()
    assert handled == ["resumed", "resumed"]
    assert problem_reports.open_reporters(session, test.id) == 0  # the next pause counts new reports only


def test_closing_pays_each_reporter_pro_rata_once_under_fifty_closes(session, db_url):
    staff = person(session, role=TO)
    test = a_test(session, participant_limit=10, session_seconds=900)
    a, a_token, _ = taker(session, test, started_minutes_ago=5, cents=3000)  # a third of 15 minutes: $10
    b, b_token, _ = taker(session, test, started_minutes_ago=10, cents=3000)
    quiet, _quiet_token, quiet_session = taker(session, test)  # did not report: not paid, session untouched
    report(session, a_token, test)
    report(session, b_token, test)
    paused_at = fresh(session, Test, test.id).paused_at

    results = all_at_once(db_url, [lambda s: staff_reports.close_and_pay(s, actor_id=staff.id, test_id=test.id)] * 50)
    assert [r for r in results if isinstance(r, int)] == [2]
    session.expire_all()
    rewards = (
        session.execute(select(Reward).where(Reward.test_id == test.id).order_by(Reward.account_id)).scalars().all()
    )
    assert [(r.account_id, r.kind, r.status, r.approved_at is not None) for r in rewards] == [
        (a.id, "pro-rata", "PENDING", True),
        (b.id, "pro-rata", "PENDING", True),
    ]
    a_started = session.execute(select(ReviewSession.started_at).where(ReviewSession.account_id == a.id)).scalar_one()
    expected = rules.pro_rata_cents(3000, a_started.replace(tzinfo=UTC), paused_at.replace(tzinfo=UTC), 900)
    assert rewards[0].amount_cents == expected and 1000 <= expected <= 1010
    assert 2000 <= rewards[1].amount_cents <= 2010
    assert fresh(session, Test, test.id).status == rules.CLOSED
    assert fresh(session, ReviewSession, quiet_session).status == "active"
    assert quiet.id not in {r.account_id for r in rewards}


def test_only_staff_who_manage_tests_resume_or_close(session):
    test = a_test(session, participant_limit=10)
    _a, a_token, _ = taker(session, test)
    _b, b_token, _ = taker(session, test)
    report(session, a_token, test)
    report(session, b_token, test)
    participant = person(session)
    for call in (
        lambda: staff_reports.resume(session, actor_id=participant.id, test_id=test.id),
        lambda: staff_reports.close_and_pay(session, actor_id=participant.id, test_id=test.id),
        lambda: staff_reports.reports(session, actor_id=participant.id),
    ):
        with pytest.raises(StaffRefused):
            call()
        session.rollback()
    staff = person(session, role=TO)
    running = a_test(session)
    with pytest.raises(ServiceError) as not_paused:
        staff_reports.resume(session, actor_id=staff.id, test_id=running.id)
    assert not_paused.value.message == rules.NOT_PAUSED
    session.rollback()
    seen = staff_reports.reports(session, actor_id=staff.id, test_id=test.id)
    assert [r["category"] for r in seen["reports"]] == ["Timer problem", "Timer problem"]
    assert all(r["new"] == "1" for r in seen["reports"])
    session.commit()
    assert all(r["new"] == "" for r in staff_reports.reports(session, actor_id=staff.id, test_id=test.id)["reports"])
    assert str(test.id) in [t["id"] for t in seen["paused"]]


def test_clearing_expired_sessions_leaves_a_paused_tests_sessions_alone(session):
    staff = person(session, role=TO)
    test = a_test(session, participant_limit=10, session_seconds=900)
    _a, a_token, a_session = taker(session, test, started_minutes_ago=30)  # past its 15 minutes
    _b, b_token, _ = taker(session, test, started_minutes_ago=30)
    report(session, a_token, test)
    report(session, b_token, test)
    assert fresh(session, Test, test.id).status == rules.PAUSED
    staff_reviews.clear_expired_pending(session, actor_id=staff.id)
    session.commit()
    assert fresh(session, ReviewSession, a_session).status == "active"  # resuming gives its time back
