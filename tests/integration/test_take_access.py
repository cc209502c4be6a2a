"""The one access decision behind every step of taking a test (portal/services/taking/access.py).

The probe of issue 12 stored a review and a PENDING reward through the survey's services for
people who may not take the test. Each scenario here starts a session and submits through the
services a raw websocket event reaches, and checks the refusal's message and that nothing is stored.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session, func, select

from portal.domain.taking.access import SURVEY_VIEW
from portal.models import Account, Invite, ParticipantProfile, Review, ReviewSession, Reward, ScreenerResponse, Test
from portal.services.definition_import import import_test
from portal.services.taking import definitions as test_definitions
from portal.services.taking import review_sessions as rs
from portal.services.taking import screener as screener_service
from portal.services.taking.access import AccessDenied
from tests.support.demo_survey import good_answers
from tests.support.factories import make_participant

ROOT = Path(__file__).resolve().parents[2]
T0 = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)
ANSWERS = good_answers()
UNVERIFIED = "Verified profile required to take this test."
NOT_INVITED = "You were not invited to participate in this test. Please contact support for help."
INVITE_EXPIRED = "This research opportunity has ended. Invites are valid for 24 hours."
FULL = "This test is already full. The participant quota has been reached; watch for future invites."
REMOVED = "We apologize for the inconvenience. This test was deleted or is no longer available."


def demo(session: Session, name: str, **overrides: Any) -> Test:
    test_definitions._cache.clear()
    data = json.loads((ROOT / "portal/data/demo_tests" / name).read_text())
    data.update(overrides)
    test = import_test(session, data)
    session.commit()
    return test


def invite(session: Session, account: Account, test: Test, status: str = "open", *, hours: int = 24) -> Invite:
    row = Invite(
        account_id=account.id,
        test_id=test.id,
        amount_cents=2500,
        status=status,
        created_at=T0 - timedelta(hours=1),
        expires_at=T0 - timedelta(hours=1) + timedelta(hours=hours),
    )
    session.add(row)
    session.commit()
    return row


def stored(session: Session) -> tuple[int, int, int]:
    return tuple(session.exec(select(func.count()).select_from(m)).one() for m in (Review, Reward, ReviewSession))


def start(session: Session, test: Test, account: Account):
    return rs.start_session(session=session, test_id=test.id, account_id=account.id, view=SURVEY_VIEW, now=T0)


def submit(session: Session, test: Test, account: Account, sid: str = "sub-1"):
    return rs.submit_review(
        session=session,
        test_id=test.id,
        account_id=account.id,
        answers=ANSWERS,
        worker_data={},
        submission_id=sid,
        now=T0 + timedelta(minutes=5),
    )


def set_test(session: Session, test: Test, **values: Any) -> None:
    for key, value in values.items():
        setattr(test, key, value)
    session.add(test)
    session.commit()


def _unverified(s: Session) -> tuple[Test, Account]:
    return demo(s, "01-survey.json"), make_participant(s, verified=False, work_email_verified=False)


def _unregistered(s: Session) -> tuple[Test, Account]:
    return demo(s, "01-survey.json"), make_participant(s, registration_complete=False, verified=False)


def _uninvited(s: Session) -> tuple[Test, Account]:
    return demo(s, "01-survey.json", panel="external"), make_participant(s)


def _with_invite(status: str, hours: int = 24) -> Callable[[Session], tuple[Test, Account]]:
    def world(s: Session) -> tuple[Test, Account]:
        test, account = demo(s, "01-survey.json", panel="external"), make_participant(s)
        invite(s, account, test, status, hours=hours)
        return test, account

    return world


def _completed_test(s: Session) -> tuple[Test, Account]:
    test = demo(s, "01-survey.json")
    set_test(s, test, status="completed")
    return test, make_participant(s)


def _other_kind(name: str) -> Callable[[Session], tuple[Test, Account]]:
    return lambda s: (demo(s, name), make_participant(s))


def _failed_screener(s: Session) -> tuple[Test, Account]:
    test, account = demo(s, "07-screener.json"), make_participant(s)
    s.add(
        ScreenerResponse(
            test_id=test.id,
            account_id=account.id,
            respondent_key=rs.respondent_key(account.id),
            selected_answers=[],
            is_passed=False,
        )
    )
    s.commit()
    return test, account


SCENARIOS = {
    "unverified": (_unverified, UNVERIFIED),
    "registration-not-finished": (_unregistered, UNVERIFIED),
    "uninvited": (_uninvited, NOT_INVITED),
    "canceled-invite": (_with_invite("canceled"), NOT_INVITED),
    "expired-invite": (_with_invite("open", hours=1), INVITE_EXPIRED),
    "filled-invite": (_with_invite("filled"), FULL),
    "completed-test": (_completed_test, REMOVED),
    "landing-page-test": (_other_kind("02-landing-page.json"), "This test is not available."),
    "video-test": (_other_kind("06-video.json"), "This test is not available."),
    "failed-screener": (_failed_screener, "Please answer the screening question first."),
}


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_a_participant_who_may_not_take_the_test_starts_nothing_and_earns_nothing(session: Session, scenario: str):
    make_world, message = SCENARIOS[scenario]
    test, account = make_world(session)
    before = stored(session)
    with pytest.raises(AccessDenied) as refused:
        start(session, test, account)
    assert refused.value.message == message
    with pytest.raises(rs.ServiceError):  # no session was started, so there is nothing to submit
        submit(session, test, account)
    session.rollback()
    assert stored(session) == before


@pytest.mark.parametrize("change", ["cancel-invite", "unverify", "stop-test", "fail-screener-later"])
def test_access_lost_during_the_session_refuses_the_submission(session: Session, change: str):
    """A session started while allowed: the submission decides again and stores nothing."""
    test = demo(session, "01-survey.json", panel="external")
    account = make_participant(session)
    row = invite(session, account, test)
    start(session, test, account)
    session.commit()
    if change == "cancel-invite":
        row.status = "canceled"
        session.add(row)
    elif change == "unverify":
        account.verified = False
        account.work_email_verified_at = None
        session.add(account)
    elif change == "stop-test":
        set_test(session, test, status="stopped")
    else:  # the screener is added to the test and the participant fails it
        set_test(session, test, screener_question=demo(session, "07-screener.json").screener_question)
        session.add(
            ScreenerResponse(
                test_id=test.id,
                account_id=account.id,
                respondent_key=rs.respondent_key(account.id),
                selected_answers=[],
                is_passed=False,
            )
        )
    session.commit()
    with pytest.raises(AccessDenied):
        submit(session, test, account)
    session.rollback()
    assert stored(session)[:2] == (0, 0)
    assert session.get(Invite, row.id).status in ("open", "canceled")


def test_the_last_place_is_taken_once_at_submission(session: Session):
    """Two participants hold sessions; the limit is lowered to one place: the second submission is
    refused with the full message (the test row is locked while the reviews are counted)."""
    test = demo(session, "01-survey.json")
    first, second = make_participant(session), make_participant(session)
    start(session, test, first)
    start(session, test, second)
    session.commit()
    set_test(session, test, participant_limit=1)
    assert submit(session, test, first).created
    session.commit()
    with pytest.raises(AccessDenied) as refused:
        submit(session, test, second, "sub-2")
    assert refused.value.message == FULL
    session.rollback()
    assert stored(session)[:2] == (1, 1)


def test_a_seniority_quota_is_checked_at_submission(session: Session):
    test = demo(session, "01-survey.json")
    first, second = make_participant(session), make_participant(session)
    for account in (first, second):
        profile = session.get(ParticipantProfile, account.id)
        profile.experience_levels = ["senior"]
        session.add(profile)
    session.commit()
    start(session, test, first)
    start(session, test, second)
    session.commit()
    set_test(session, test, seniority_limits={"senior": 1})
    submit(session, test, first)
    session.commit()
    with pytest.raises(AccessDenied) as refused:
        submit(session, test, second, "sub-2")
    assert refused.value.state == "seniority-capacity-full"


def test_an_allowed_participant_still_takes_the_test(session: Session):
    test = demo(session, "01-survey.json", panel="external")
    account = make_participant(session)
    invite(session, account, test)
    start(session, test, account)
    result = submit(session, test, account)
    assert result.created and result.amount_cents == 2500


def test_the_screener_is_refused_to_a_participant_who_may_not_take_the_test(session: Session):
    test = demo(session, "07-screener.json", panel="external")
    account = make_participant(session)  # no invite
    with pytest.raises(AccessDenied):
        screener_service.submit(
            session=session,
            test_id=test.id,
            account_id=account.id,
            respondent_key=rs.respondent_key(account.id),
            raw_selection=[0],
        )
    session.rollback()
    assert session.exec(select(func.count()).select_from(ScreenerResponse)).one() == 0
