"""The personal-info step by raw websocket events, as a script would: forged pending details (the
browser's, handed back when it asks what the server kept, or with Submit) for a field the step does
not show, of the wrong type or shape, change nothing; the details sent as the page sends them are
stored once; and the step's events before the questions are answered store nothing."""

from __future__ import annotations

import json
import secrets

from sqlmodel import select

from portal.domain.taking import worker_details
from portal.models import Review, ReviewSession
from portal.states.taking.survey import SurveyState
from tests.support.people import demo_test
from tests.support.raw_tab import RawTab, run

SURVEY = SurveyState.get_full_name()
NEWEST = 2**52  # a sequence number newer than any change of the session
# Forged pending details, each refused: a field the crowd-work step does not show, text that is not
# text, the checkbox as a string, an entry that is not an object, a key with no field.
HOSTILE = {
    "detail:jobTitle": {"answer": {"value": "Chief Forger"}, "seq": NEWEST},
    "detail:firstName": {"answer": {"value": 42}, "seq": NEWEST},
    "detail:differentPayment": {"answer": {"value": "yes"}, "seq": NEWEST},
    "detail:state": {"answer": "US-CA", "seq": NEWEST},
    "detail:": {"answer": {"value": "x"}, "seq": NEWEST},
}


def crowd_work_test(db):
    return demo_test(db, "08-public-qualification.json", panel="mturk")


async def open_as_a_worker(base: str, test_id: int) -> RawTab:
    tab = RawTab(base)
    await tab.open(f"/test/{test_id}/rate", {"rate_test_id": str(test_id)})
    who = {"testId": test_id, "id": secrets.token_hex(16), "project": ""}
    await tab.send(f"{SURVEY}.enter_public", {"who": json.dumps(who)})
    return tab


async def details_then_submit(tab: RawTab, test_id: int) -> None:
    await tab.send(f"{SURVEY}.set_detail", {"field": "workerId", "value": "E5RAWWORKER"})
    await tab.send(f"{SURVEY}.set_detail", {"field": "firstName", "value": "Sam"})
    await tab.send(f"{SURVEY}.set_detail", {"field": "state", "value": "US-NY"})
    await tab.send(f"{SURVEY}.set_detail", {"field": "jobTitle", "value": "Chief Forger"})  # not shown here
    await tab.send(
        f"{SURVEY}.bridge", {"message": json.dumps({"kind": "pending", "testId": test_id, "pending": HOSTILE})}
    )
    await tab.send(f"{SURVEY}.submit_details_with", {"pending": json.dumps(HOSTILE)}, settle=0.8)


def test_forged_pending_details_change_nothing_and_the_real_ones_are_stored_once(app_server):
    with app_server.db() as db:
        test_id = crowd_work_test(db).id

    async def take() -> RawTab:
        tab = await open_as_a_worker(app_server.url, test_id)
        await tab.send(f"{SURVEY}.start_survey")
        await tab.send(
            f"{SURVEY}.set_answer", {"key": "dev-language", "answer": {"type": "single-choice", "value": "go"}}
        )
        await tab.send(f"{SURVEY}.go_next")
        await tab.send(
            f"{SURVEY}.set_answer", {"key": "dev-ci", "answer": {"type": "short-text", "value": "Buildkite"}}
        )
        await tab.send(f"{SURVEY}.submit")
        await details_then_submit(tab, test_id)
        await tab.send(f"{SURVEY}.submit_details", settle=0.8)  # a second Submit stores nothing more
        await tab.close()
        return tab

    tab = run(take())
    assert tab.var(SURVEY, "phase") == "thank-you"
    with app_server.db() as db:
        (review,) = db.exec(select(Review).where(Review.test_id == test_id)).all()
    assert review.worker_data["workerId"] == "E5RAWWORKER"
    assert review.worker_data["firstName"] == "Sam" and review.worker_data["state"] == "US-NY"
    assert not review.worker_data.get("jobTitle")


def test_the_steps_events_before_the_questions_are_answered_store_nothing(app_server):
    with app_server.db() as db:
        test_id = crowd_work_test(db).id

    async def take() -> RawTab:
        tab = await open_as_a_worker(app_server.url, test_id)
        await tab.send(f"{SURVEY}.start_survey")
        await details_then_submit(tab, test_id)  # still on the first question
        await tab.send(f"{SURVEY}.submit_details", settle=0.8)
        await tab.close()
        return tab

    tab = run(take())
    assert tab.var(SURVEY, "phase") == "questions"
    with app_server.db() as db:
        assert db.exec(select(Review).where(Review.test_id == test_id)).all() == []
        (session,) = db.exec(select(ReviewSession).where(ReviewSession.test_id == test_id)).all()
        assert session.draft_position.get("details") == worker_details.empty_details()
        assert session.draft_position.get("seqs") == {}
