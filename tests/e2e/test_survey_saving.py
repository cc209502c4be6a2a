"""Saving answers truthfully (issue 18, item 3): an answer is kept in local storage, pending, until the
server confirms it holds it; meanwhile the page says 'Saving…', and Continue takes the browser's
pending answer instead of saying 'Answer is required'."""

from __future__ import annotations

import contextlib
import json
import os
import signal
from collections.abc import Iterator

from playwright.sync_api import Page, expect
from sqlmodel import select

from portal.models import ReviewSession
from tests.e2e.test_survey import answer_five, begin, continue_to, option, record_sent_events
from tests.support.polling import polled

SAVING = "Saving\u2026"
SAVED = "All answers saved"
WAIT_MS = 60_000  # a generous bound for a slow, shared machine; no test asserts how long anything took


@contextlib.contextmanager
def server_stopped(app_server) -> Iterator[None]:
    """The app's processes stopped (SIGSTOP to its process group) for the block: its websocket stays
    open, events wait in it unanswered, as on an overloaded server."""
    os.killpg(app_server.proc.pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.killpg(app_server.proc.pid, signal.SIGCONT)


def local_copy(page: Page, key: str) -> dict:
    return json.loads(page.evaluate("(key) => window.localStorage.getItem(key)", key) or "{}")


def stored_draft(app_server, account_id: int, test_id: int, key: str, value: str) -> dict:
    """The server draft of the participant's session once it holds `value` under `key` (polled: the
    draft is written behind, within a second)."""

    def answers() -> dict:
        with app_server.db() as db:
            row = db.exec(
                select(ReviewSession).where(ReviewSession.test_id == test_id, ReviewSession.account_id == account_id)
            ).one()
            return row.draft_answers or {}

    return polled(answers, lambda found: (found.get(key) or {}).get("value") == value, timeout=WAIT_MS / 1000)


def test_an_answer_given_while_the_server_is_stopped_shows_saving_stays_local_and_is_confirmed(
    page: Page, app_server, db
):
    test, account = begin(page, app_server, db)
    answer_five(page)
    continue_to(page, "Question 10/13")
    continue_to(page, "Question 11/13")
    store = f"{test.id}-survey-answers"
    status = page.locator("#taking-save-status")
    expect(status).to_have_attribute("aria-live", "polite")
    with server_stopped(app_server):
        page.fill("#survey-text", "Head of data")
        expect(status).to_have_text(SAVING, timeout=WAIT_MS)
        # the answer is in local storage, marked as not yet kept by the server
        kept = local_copy(page, store)
        assert kept["dirty"] is True
        assert "Head of data" in [a.get("value") for a in kept["answers"].values()]
    # The server comes back: the answer is sent, confirmed, and no longer pending.
    expect(status).to_have_text(SAVED, timeout=WAIT_MS)
    kept = local_copy(page, store)
    assert kept["pending"] == {} and kept["dirty"] is False, json.dumps(kept)
    key = next(k for k, a in kept["answers"].items() if a.get("value") == "Head of data")
    assert stored_draft(app_server, account.id, test.id, key, "Head of data")[key]["value"] == "Head of data"
    continue_to(page, "Question 12/13")
    expect(page.locator("#survey-error")).to_have_count(0)


def test_continue_takes_a_pending_answer_the_server_lost_instead_of_answer_is_required(page: Page, app_server, db):
    test, account = begin(page, app_server, db)
    store = f"{test.id}-survey-answers"
    # The first answer reached the page but its state write was refused (a lock that expired under
    # overload): the server's state lacks it, the browser holds it pending.
    page.evaluate(
        """(key) => {
        const copy = JSON.parse(window.localStorage.getItem(key));
        const answer = {type: "single-choice", value: "influencer", isOther: false};
        copy.pending = {involvement: {answer, seq: Date.now() * 1000}};
        copy.answers = {...copy.answers, involvement: answer};
        copy.dirty = true;
        window.localStorage.setItem(key, JSON.stringify(copy));
    }""",
        store,
    )
    page.click("#survey-continue")
    # the influencer route's next question, not 'Answer is required'
    expect(page.locator("#survey-progress")).to_have_text("Question 5/13")
    expect(page.locator("#survey-error")).to_have_count(0)
    assert (
        stored_draft(app_server, account.id, test.id, "involvement", "influencer")["involvement"]["value"]
        == "influencer"
    )
    page.wait_for_function(
        "(key) => Object.keys(JSON.parse(window.localStorage.getItem(key)).pending || {}).length === 0",
        arg=store,
        timeout=WAIT_MS,
    )


def test_continue_confirms_the_answer_before_it_without_an_event_of_its_own(page: Page, app_server, db):
    """The answer's reply leaves it pending; Continue's reply (its event loaded the stored state)
    confirms it: no pending report is sent, and a reload sends nothing but the page's own event."""
    test, _account = begin(page, app_server, db)
    store = f"{test.id}-survey-answers"
    sent = record_sent_events(page)
    option(page, "I recommend tools to the decision maker")
    page.wait_for_function(
        "(key) => Object.keys(JSON.parse(window.localStorage.getItem(key) || '{}').pending || {}).length === 1",
        arg=store,
        timeout=WAIT_MS,
    )
    continue_to(page, "Question 5/13")
    page.wait_for_function(
        "(key) => Object.keys(JSON.parse(window.localStorage.getItem(key)).pending || {}).length === 0",
        arg=store,
        timeout=WAIT_MS,
    )
    assert local_copy(page, store)["dirty"] is False
    assert "bridge" not in sent
    expect(page.locator("#taking-save-status")).to_have_text("")  # a quick save shows nothing
