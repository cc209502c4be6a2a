"""Raw events over the websocket, as a hand-made client could send them (no browser, no page rules):
the server refuses what the page would never send and stores nothing."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
from datetime import timedelta

from sqlmodel import func, select

from bench.survey_flow import Events, FlowError, Samples, Tab
from portal.http.client import SESSION_COOKIE
from portal.models import Invite, Review, ReviewSession, Reward, Test
from portal.models._base import utcnow
from portal.services.sessions import create_session
from portal.states.taking.rate import RateState  # noqa: F401 - registered here, not in the client's thread
from portal.states.taking.survey import SurveyState
from tests.e2e.test_survey import DEMO_SURVEY
from tests.support.demo_survey import good_answers
from tests.support.factories import make_participant
from tests.support.polling import polled

THREE_WORDS = "Too short answer"


def participant_cookie(db, test: Test) -> tuple[int, str]:
    account = make_participant(db)
    db.add(Invite(account_id=account.id, test_id=test.id, amount_cents=2500, expires_at=utcnow() + timedelta(hours=24)))
    token = create_session(session=db, account_id=account.id)
    db.commit()
    return account.id, f"{SESSION_COOKIE}={token}"


def stored(db, account_id: int) -> tuple[int, int]:
    db.expire_all()
    return (
        db.exec(select(func.count()).select_from(Review).where(Review.account_id == account_id)).one(),
        db.exec(select(func.count()).select_from(Reward).where(Reward.account_id == account_id)).one(),
    )


def draft(db, account_id: int, key: str) -> dict:
    """The server draft's answer to `key` once written (drafts are written behind, within a second)."""

    def answers() -> dict:
        db.expire_all()
        return db.exec(select(ReviewSession).where(ReviewSession.account_id == account_id)).one().draft_answers

    return polled(answers, lambda found: key in found, timeout=10).get(key, {})


async def settled(tab: Tab) -> Tab:
    """Every update of the events sent so far has arrived: the server runs a tab's events in order,
    so a no-op's answer comes after them. A redirect among them is kept in tab.redirect."""
    try:
        await tab.send(f"{SURVEY}.noop")
    except FlowError:
        pass
    return tab


def run(coro):
    """Run the client in its own thread and event loop (Playwright's sync API holds this thread's loop)."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, asyncio.wait_for(coro, 120)).result()


SURVEY = SurveyState.get_full_name()


async def started_tab(base: str, cookie: str, test_id: int) -> Tab:
    tab = Tab(base, cookie, test_id, Events.survey(), Samples())
    await tab.open_page()
    await tab.send(f"{SURVEY}.start_survey")
    assert tab.phase == "questions"
    return tab


def test_a_three_word_long_answer_and_an_unknown_option_are_refused_and_not_stored(app_server, db):
    test = db.exec(select(Test).where(Test.name == DEMO_SURVEY)).one()
    account_id, cookie = participant_cookie(db, test)

    async def scenario() -> None:
        tab = await started_tab(app_server.url, cookie, test.id)
        try:
            # An option the question does not have.
            await tab.send(
                f"{SURVEY}.set_answer", {"key": "involvement", "answer": {"type": "single-choice", "value": "hacker"}}
            )
            assert tab.errors == {"involvement": "'hacker' is not one of the options of this question"}
            # A valid route, but a 3-word long answer: refused at submission with the spec's message.
            answers = good_answers(**{"last-purchase": {"type": "long-text", "value": THREE_WORDS, "isLimited": True}})
            for key, answer in answers.items():
                await tab.send(f"{SURVEY}.set_answer", {"key": key, "answer": answer})
            await tab.send(f"{SURVEY}.submit")
            await settled(tab)
            assert tab.phase == "questions"
            assert tab.errors.get("last-purchase") == "Your answer is too short, please make it at least 15 words."
            # An answer object with fields the page never sends is refused whole.
            await tab.send(
                f"{SURVEY}.set_answer",
                {"key": "job-title", "answer": {"type": "short-text", "value": "x", "reviewId": 1}},
            )
        finally:
            await tab.close()

    run(scenario())
    assert stored(db, account_id) == (0, 0)
    assert draft(db, account_id, "last-purchase")["value"] == THREE_WORDS  # the draft keeps what was typed
    assert draft(db, account_id, "job-title")["value"] == "Head of data"  # the refused object changed nothing


def test_another_participants_session_cannot_be_reached(app_server, db):
    test = db.exec(select(Test).where(Test.name == DEMO_SURVEY)).one()
    owner_id, owner_cookie = participant_cookie(db, test)
    other_id, other_cookie = participant_cookie(db, test)

    async def scenario() -> None:
        owner = await started_tab(app_server.url, owner_cookie, test.id)
        await owner.send(
            f"{SURVEY}.set_answer", {"key": "involvement", "answer": {"type": "single-choice", "value": "none"}}
        )
        await owner.close()
        # The other participant names the owner's session every way a raw event can: as a public
        # respondent key, and by answering and submitting (their own cookie decides whose session).
        intruder = Tab(app_server.url, other_cookie, test.id, Events.survey(), Samples())
        await intruder.open_page()
        await intruder.send(
            f"{SURVEY}.enter_public", {"who": json.dumps({"testId": test.id, "id": f"account:{owner_id}"})}
        )
        await intruder.send(
            f"{SURVEY}.set_answer", {"key": "involvement", "answer": {"type": "single-choice", "value": "decider"}}
        )
        await intruder.send(f"{SURVEY}.submit")
        await settled(intruder)
        assert intruder.phase == "welcome"  # no session of theirs was started; nothing moved
        await intruder.close()

    run(scenario())
    assert draft(db, owner_id, "involvement")["value"] == "none"
    assert stored(db, owner_id) == (0, 0) and stored(db, other_id) == (0, 0)
    db.expire_all()
    assert (
        db.exec(select(func.count()).select_from(ReviewSession).where(ReviewSession.account_id == other_id)).one() == 0
    )


def test_a_submission_after_the_deadline_is_refused(app_server, db):
    test = db.exec(select(Test).where(Test.name == DEMO_SURVEY)).one()
    account_id, cookie = participant_cookie(db, test)

    async def scenario() -> Tab:
        tab = await started_tab(app_server.url, cookie, test.id)
        await tab.send(
            f"{SURVEY}.set_answer", {"key": "involvement", "answer": {"type": "single-choice", "value": "none"}}
        )
        db.expire_all()
        row = db.exec(select(ReviewSession).where(ReviewSession.account_id == account_id)).one()
        row.deadline_at = utcnow() - timedelta(minutes=1)
        db.add(row)
        db.commit()
        try:
            await tab.send(f"{SURVEY}.submit")
        except FlowError:
            pass
        await settled(tab)
        await tab.close()
        return tab

    tab = run(scenario())
    assert tab.redirect == f"/test/{test.id}/rate"
    assert stored(db, account_id) == (0, 0)
