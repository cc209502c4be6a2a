"""A preference test's choice and reason are saved truthfully, as the survey's answers are
(tests/e2e/test_survey_saving.py): kept in local storage, pending, until the server confirms it holds
them; meanwhile the page says 'Saving…', and Next takes the browser's pending reason instead of
saying 'Answer is required.'."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.helpers import sign_in
from tests.e2e.taking import invited, named
from tests.e2e.test_preference import FIFTEEN_WORDS, IMAGE, PASSWORD, start
from tests.e2e.test_survey import record_sent_events, shot
from tests.e2e.test_survey_saving import SAVED, SAVING, WAIT_MS, local_copy, server_stopped
from tests.support.drafts import answer_of, wait_for_draft

NO_PENDING = "(key) => Object.keys(JSON.parse(window.localStorage.getItem(key) || '{}').pending || {}).length === 0"


def begin(page: Page, app_server, width: int = 1280, *, choose: bool = True) -> tuple[str, int, str]:
    """A new invited participant starts the image preference test (on a page `width` px wide) and
    chooses the second concept: (the local-storage key, the account id, the second concept's key)."""
    with app_server.db() as db:
        test = named(db, IMAGE)
        account = invited(db, test, cents=800)
        test_id, account_id = test.id, account.id
    sign_in(page, app_server.url, account.email, PASSWORD)
    page.set_viewport_size({"width": width, "height": 800})
    start(page, app_server.url, test)
    if choose:
        page.locator("label[for=concept-1]").click()
    return f"{test_id}-preference-answer", account_id, page.locator("#concept-1").get_attribute("value")


def test_a_reason_typed_while_the_server_is_stopped_shows_saving_stays_local_and_is_confirmed(page: Page, app_server):
    store, account_id, _ = begin(page, app_server, width=375)
    page.click("#preference-continue")
    expect(page.locator("#follow-up")).to_have_text("Why did you choose concept B?")
    status = page.locator("#taking-save-status")
    expect(status).to_have_attribute("aria-live", "polite")
    with server_stopped(app_server):
        page.fill("#preference-answer", FIFTEEN_WORDS)
        expect(status).to_have_text(SAVING, timeout=WAIT_MS)
        kept = local_copy(page, store)
        assert kept["dirty"] is True and kept["answers"]["answer"]["value"] == FIFTEEN_WORDS
        shot(page, "preference-saving-375")
    # The server comes back: the reason is sent, confirmed, and no longer pending.
    expect(status).to_have_text(SAVED, timeout=WAIT_MS)
    kept = local_copy(page, store)
    assert kept["pending"] == {} and kept["dirty"] is False, kept
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")  # nothing scrolls sideways
    shot(page, "preference-saved-375")
    wait_for_draft(
        app_server, account_id, lambda row: answer_of(row, "answer") == FIFTEEN_WORDS, timeout=WAIT_MS / 1000
    )
    page.click("#preference-next")
    expect(page.locator("#confirm-answer")).to_have_text(FIFTEEN_WORDS)


@pytest.mark.parametrize("way", ["radio", "detailed view"])
def test_a_choice_made_while_the_server_is_stopped_shows_saving_and_is_confirmed(page: Page, app_server, way):
    store, account_id, concept = begin(page, app_server, choose=False)
    status = page.locator("#taking-save-status")
    if way == "detailed view":
        page.click("#concept-open-1")
        expect(page.locator("#detail-title")).to_have_text("Concept B")
    with server_stopped(app_server):
        page.locator("#detail-select" if way == "detailed view" else "label[for=concept-1]").click()
        expect(status).to_have_text(SAVING, timeout=WAIT_MS)
    expect(status).to_have_text(SAVED, timeout=WAIT_MS)
    kept = local_copy(page, store)
    assert kept["pending"] == {} and kept["dirty"] is False, kept
    wait_for_draft(
        app_server, account_id, lambda row: answer_of(row, "selectedConcept") == concept, timeout=WAIT_MS / 1000
    )


def test_next_takes_a_pending_reason_the_server_lost_instead_of_answer_is_required(page: Page, app_server):
    store, account_id, concept = begin(page, app_server)
    page.click("#preference-continue")
    expect(page.locator("#follow-up")).to_have_text("Why did you choose concept B?")
    page.wait_for_function(NO_PENDING, arg=store, timeout=WAIT_MS)  # Continue's reply confirmed the choice
    # The reason reached the page but its state write was refused (a lock that expired under overload):
    # the server's state lacks it, the browser holds it pending.
    page.evaluate(
        """([key, concept, text]) => {
        const copy = JSON.parse(window.localStorage.getItem(key));
        const answer = {value: text, concept};
        copy.pending = {answer: {answer, seq: Date.now() * 1000}};
        copy.answers = {...copy.answers, answer};
        copy.dirty = true;
        window.localStorage.setItem(key, JSON.stringify(copy));
    }""",
        [store, concept, FIFTEEN_WORDS],
    )
    page.click("#preference-next")
    # the confirm step with that reason, not 'Answer is required.'
    expect(page.locator("#confirm-answer")).to_have_text(FIFTEEN_WORDS)
    expect(page.locator("#answer-error")).to_have_count(0)
    wait_for_draft(
        app_server, account_id, lambda row: answer_of(row, "answer") == FIFTEEN_WORDS, timeout=WAIT_MS / 1000
    )
    page.wait_for_function(NO_PENDING, arg=store, timeout=WAIT_MS)


def test_continue_confirms_the_choice_before_it_without_an_event_of_its_own(page: Page, app_server):
    """The choice's reply leaves it pending (with the reason it cleared); Continue's reply (its event
    loaded the stored state) confirms both: no pending report is sent."""
    sent = record_sent_events(page)
    store, _, concept = begin(page, app_server)
    page.wait_for_function(
        "(key) => Object.keys(JSON.parse(window.localStorage.getItem(key) || '{}').pending || {}).length === 2",
        arg=store,
        timeout=WAIT_MS,
    )
    assert local_copy(page, store)["pending"]["selectedConcept"]["answer"] == {"value": concept}
    page.click("#preference-continue")
    expect(page.locator("#follow-up")).to_have_text("Why did you choose concept B?")
    page.wait_for_function(NO_PENDING, arg=store, timeout=WAIT_MS)
    assert local_copy(page, store)["dirty"] is False
    assert "bridge" not in sent and "to_answer_with" not in sent
    expect(page.locator("#taking-save-status")).to_have_text("")  # a quick save shows nothing
