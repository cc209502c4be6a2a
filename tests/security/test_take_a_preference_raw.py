"""A preference test taken by raw websocket events: people who may not take it store nothing, a
concept that is not an option is never chosen, forged 'pending' answers (the browser's, handed back
when it asks what the server kept, or with Next) change nothing, and the same events in order from
an invited participant store one review."""

from __future__ import annotations

import json

import pytest
from sqlmodel import select

from portal.domain.taking.survey_answers import MAX_TEXT_LENGTH
from portal.models import Review
from portal.states.taking.preference import PreferenceState
from tests.security.test_take_a_test_raw import stored
from tests.support.people import ANONYMOUS, demo_test, invite, person
from tests.support.raw_tab import RawTab, run

PREFERENCE = PreferenceState.get_full_name()
LONG = "The second concept talks about real decision makers, which is who I want to hear from before I buy anything."
NEWEST = 2**52  # a sequence number newer than any change of the session
# Forged pending answers, each refused: a concept not in the test, an over-long reason, a reason for
# another concept than the chosen one, entries of the wrong shape.
HOSTILE = [
    {"selectedConcept": {"answer": {"value": "concept-z"}, "seq": NEWEST}},
    {"answer": {"answer": {"value": "x" * (MAX_TEXT_LENGTH + 1), "concept": "concept-b"}, "seq": NEWEST}},
    {"answer": {"answer": {"value": "typed for another concept", "concept": "concept-a"}, "seq": NEWEST}},
    {
        "answer": {"answer": "typed without its concept", "seq": NEWEST},
        "selectedConcept": {"answer": {"value": "concept-c", "also": 1}, "seq": NEWEST},
    },
]


async def take(base: str, cookie: str, test_id: int, concept: str = "concept-b") -> RawTab:
    tab = RawTab(base, cookie=cookie)
    await tab.open(f"/test/{test_id}/rate", {"rate_test_id": str(test_id)})
    await tab.send(f"{PREFERENCE}.enter", {"test_id": test_id})
    await tab.send(f"{PREFERENCE}.start_test")
    await tab.send(f"{PREFERENCE}.choose", {"key": concept})
    await tab.send(f"{PREFERENCE}.to_answer")
    await tab.send(f"{PREFERENCE}.set_answer_text", {"concept": "concept-a", "text": "typed for another concept"})
    await tab.send(f"{PREFERENCE}.set_answer_text", {"concept": concept, "text": LONG})
    for pending in HOSTILE:
        await tab.send(
            f"{PREFERENCE}.bridge", {"message": json.dumps({"kind": "pending", "testId": test_id, "pending": pending})}
        )
    await tab.send(f"{PREFERENCE}.to_confirm_with", {"pending": json.dumps(HOSTILE[1])})
    await tab.send(f"{PREFERENCE}.submit_details", settle=0.8)
    await tab.close()
    return tab


def world(db, case: str):
    if case == "anonymous":
        return demo_test(db, "04-preference-image.json"), ANONYMOUS
    if case == "unverified":
        return demo_test(db, "04-preference-image.json"), person(db, verified=False, work_email_verified=False)
    if case == "uninvited":
        return demo_test(db, "04-preference-image.json", panel="external"), person(db)
    if case == "survey-test":  # the preference screen's events on a survey
        return demo_test(db, "01-survey.json"), person(db)
    raise AssertionError(case)


@pytest.mark.parametrize("case", ["anonymous", "unverified", "uninvited", "survey-test"])
def test_raw_preference_events_store_nothing_for_someone_who_may_not_take_the_test(app_server, case):
    with app_server.db() as db:
        test, who = world(db, case)
        test_id = test.id
    tab = run(take(app_server.url, who.cookie, test_id))
    with app_server.db() as db:
        assert stored(db, who, test_id) == (0, 0, 0)
    assert tab.var(PREFERENCE, "phase") in (None, "loading", "welcome", "reviewed")


def test_a_concept_that_is_not_an_option_is_never_chosen_and_the_real_one_is_stored_once(app_server):
    with app_server.db() as db:
        test = demo_test(db, "04-preference-image.json", panel="external")
        who = person(db)
        invite(db, who, test)
        test_id = test.id
    tab = run(take(app_server.url, who.cookie, test_id, concept="concept-z"))
    with app_server.db() as db:
        assert stored(db, who, test_id) == (0, 0, 1)  # the session started; nothing was chosen or stored
    assert tab.var(PREFERENCE, "phase") == "choose"
    tab = run(take(app_server.url, who.cookie, test_id))
    with app_server.db() as db:
        assert stored(db, who, test_id) == (1, 1, 1)
        review = db.exec(select(Review).where(Review.test_id == test_id)).one()
        assert review.answers["selectedConcept"] == "concept-b" and len(review.options_order) == 3
        # the text sent for another concept, and every forged pending answer, was dropped
        assert review.answers["answer"] == LONG
    assert tab.var(PREFERENCE, "phase") == "thank-you"
