"""Taking a test by raw websocket events, as a script would: the survey's events (enter, start,
answer, continue, submit) sent straight to the server by people who may not take the test store no
review, no reward and no session (issue 12's probe stored one of each for every case here)."""

from __future__ import annotations

import json

import pytest
from sqlmodel import Session, func, select

from portal.models import Review, ReviewSession, Reward, ScreenerResponse
from portal.services.taking.review_sessions import respondent_key
from portal.states.taking.survey import SurveyState
from tests.support.people import ANONYMOUS, Person, demo_test, invite, person
from tests.support.raw_tab import RawTab, run

SURVEY = SurveyState.get_full_name()
ANSWER = {"type": "single-choice", "value": "influencer"}


def stored(db: Session, who: Person, test_id: int) -> tuple[int, int, int]:
    db.expire_all()
    rows = []
    for model in (Review, Reward, ReviewSession):
        query = select(func.count()).select_from(model).where(model.test_id == test_id)
        if who.account_id is not None:
            query = query.where(model.account_id == who.account_id)
        rows.append(db.exec(query).one())
    return tuple(rows)


async def take_by_events(base: str, who: Person, test_id: int) -> RawTab:
    tab = RawTab(base, cookie=who.cookie)
    await tab.open(f"/test/{test_id}/rate", {"rate_test_id": str(test_id)})
    await tab.send(f"{SURVEY}.enter", {"test_id": test_id})
    await tab.send(f"{SURVEY}.start_survey")
    await tab.send(f"{SURVEY}.set_answer", {"key": "involvement", "answer": ANSWER})
    await tab.send(f"{SURVEY}.go_next")
    # Continue with the browser's pending answers (the answer a refused state write lost)
    await tab.send(f"{SURVEY}.go_next_with", {"pending": json.dumps({"involvement": {"answer": ANSWER, "seq": 1}})})
    await tab.send(
        f"{SURVEY}.bridge",
        {
            "message": json.dumps(
                {"kind": "pending", "testId": test_id, "pending": {"involvement": {"answer": ANSWER, "seq": 2}}}
            )
        },
    )
    await tab.send(f"{SURVEY}.submit")
    await tab.send(f"{SURVEY}.extend_time")
    await tab.close()
    return tab


def world(db: Session, case: str):
    """(test, who) for each case of the probe."""
    if case == "anonymous":
        return demo_test(db, "01-survey.json"), ANONYMOUS
    if case == "unverified":
        return demo_test(db, "01-survey.json"), person(db, verified=False, work_email_verified=False)
    if case == "registration-not-finished":
        return demo_test(db, "01-survey.json"), person(db, registration_complete=False, verified=False)
    if case == "uninvited":
        return demo_test(db, "01-survey.json", panel="external"), person(db)
    if case in ("canceled-invite", "expired-invite", "filled-invite"):
        test, who = demo_test(db, "01-survey.json", panel="external"), person(db)
        status = {"canceled-invite": "canceled", "filled-invite": "filled"}.get(case, "open")
        invite(db, who, test, status, hours=1 if case == "expired-invite" else 24)
        return test, who
    if case == "completed-test":
        return demo_test(db, "01-survey.json", status="completed"), person(db)
    if case == "landing-page-test":
        return demo_test(db, "02-landing-page.json"), person(db)
    if case == "video-test":
        return demo_test(db, "06-video.json"), person(db)
    if case == "failed-screener":
        test, who = demo_test(db, "07-screener.json"), person(db)
        db.add(
            ScreenerResponse(
                test_id=test.id,
                account_id=who.account_id,
                respondent_key=respondent_key(who.account_id),
                selected_answers=[],
                is_passed=False,
            )
        )
        db.commit()
        return test, who
    raise AssertionError(case)


CASES = [
    "anonymous",
    "unverified",
    "registration-not-finished",
    "uninvited",
    "canceled-invite",
    "expired-invite",
    "filled-invite",
    "completed-test",
    "landing-page-test",
    "video-test",
    "failed-screener",
]


@pytest.mark.parametrize("case", CASES)
def test_raw_survey_events_store_nothing_for_someone_who_may_not_take_the_test(app_server, case):
    with app_server.db() as db:
        test, who = world(db, case)
        test_id = test.id
    tab = run(take_by_events(app_server.url, who, test_id))
    with app_server.db() as db:
        assert stored(db, who, test_id) == (0, 0, 0)
    # The tab never reached the questions.
    assert tab.var(SURVEY, "phase") in (None, "loading", "welcome", "reviewed")


def test_the_same_events_from_an_invited_verified_participant_do_start_the_test(app_server):
    """The control: the raw client is able to start a session when the person may take the test."""
    with app_server.db() as db:
        test = demo_test(db, "01-survey.json", panel="external")
        who = person(db)
        invite(db, who, test)
        test_id = test.id
    run(take_by_events(app_server.url, who, test_id))
    with app_server.db() as db:
        assert stored(db, who, test_id)[2] == 1
