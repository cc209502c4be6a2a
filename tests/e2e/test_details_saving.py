"""The personal-info step's details are saved as truthfully as the answers (issue 18, item 3): each
change is kept in local storage, pending, until the server confirms it holds it; meanwhile the page
says 'Saving…'; keystrokes are kept before the field is left; and Submit takes a detail the server
lost instead of saying it is required."""

from __future__ import annotations

import json

from playwright.sync_api import Page, expect
from sqlmodel import select

from portal.domain.taking import worker_details
from portal.models import Review, ReviewSession
from tests.e2e.test_crowd_work_thank_you import answer_the_questions, crowd_work_test
from tests.e2e.test_survey_saving import SAVED, SAVING, WAIT_MS, local_copy, server_stopped
from tests.support.polling import polled

FIRST = "detail:firstName"


def store_of(test) -> str:
    return f"{test.id}-survey-answers"


def stored_details(app_server, test_id: int, field: str, value: str) -> dict:
    """The server draft's details (the public respondent's session) once `field` holds `value` (polled:
    the draft is written behind)."""

    def details() -> dict:
        with app_server.db() as db:
            row = db.exec(select(ReviewSession).where(ReviewSession.test_id == test_id)).one()
            return (row.draft_position or {}).get("details") or {}

    return polled(details, lambda found: found.get(field) == value, timeout=WAIT_MS / 1000)


def test_a_detail_typed_while_the_server_is_stopped_shows_saving_and_is_confirmed(page: Page, app_server, db):
    test = crowd_work_test(db)
    page.goto(f"{app_server.url}/test/{test.id}/rate")
    answer_the_questions(page)
    status = page.locator("#taking-save-status")
    with server_stopped(app_server):
        page.fill("#detail-firstName", "Samira")
        page.locator("#detail-firstName").blur()
        expect(status).to_have_text(SAVING, timeout=WAIT_MS)
        kept = local_copy(page, store_of(test))
        assert kept["dirty"] is True and kept["answers"][FIRST]["value"] == "Samira", json.dumps(kept)
    expect(status).to_have_text(SAVED, timeout=WAIT_MS)
    kept = local_copy(page, store_of(test))
    assert kept["pending"] == {} and kept["dirty"] is False, json.dumps(kept)
    assert stored_details(app_server, test.id, "firstName", "Samira")["firstName"] == "Samira"


def test_a_detail_typed_and_not_left_survives_a_reload(page: Page, app_server, db):
    """A tab reloaded before the field was left (no event sent yet) shows what was typed."""
    test = crowd_work_test(db)
    page.goto(f"{app_server.url}/test/{test.id}/rate")
    answer_the_questions(page)
    page.locator("#detail-firstName").press_sequentially("Noor")
    page.wait_for_function(
        "(key) => (JSON.parse(window.localStorage.getItem(key) || '{}').answers || {})"
        "['detail:firstName']?.value === 'Noor'",
        arg=store_of(test),
        timeout=WAIT_MS,
    )
    page.reload()
    expect(page.locator("#personal-info-title")).to_be_visible(timeout=WAIT_MS)
    expect(page.locator("#detail-firstName")).to_have_value("Noor")
    assert stored_details(app_server, test.id, "firstName", "Noor")["firstName"] == "Noor"


def test_submit_takes_a_pending_detail_the_server_lost_instead_of_saying_it_is_required(page: Page, app_server, db):
    test = crowd_work_test(db)
    page.goto(f"{app_server.url}/test/{test.id}/rate")
    answer_the_questions(page)
    page.fill("#detail-workerId", "D4PENDING")
    expect(page.get_by_text("Looking up your details...")).to_have_count(0, timeout=WAIT_MS)
    page.select_option("#detail-state", "US-NY")
    expect(page.locator("#detail-state")).to_have_value("US-NY")
    # The first name reached the page, but its event's state write was refused (a lock that expired
    # under overload): the server's state lacks it, the browser holds it pending.
    page.evaluate(
        """(key) => {
        const copy = JSON.parse(window.localStorage.getItem(key));
        const answer = {value: "Sam"};
        copy.pending = {...(copy.pending || {}), "detail:firstName": {answer, seq: Date.now() * 1000}};
        copy.answers = {...copy.answers, "detail:firstName": answer};
        copy.dirty = true;
        window.localStorage.setItem(key, JSON.stringify(copy));
    }""",
        store_of(test),
    )
    page.click("#details-submit")
    expect(page.locator("#thank-you-title")).to_be_visible(timeout=WAIT_MS)
    expect(page.get_by_text(worker_details.REQUIRED.format(label=worker_details.LABELS["firstName"]))).to_have_count(0)
    review = db.exec(select(Review).where(Review.test_id == test.id)).one()
    assert review.worker_data["firstName"] == "Sam" and review.worker_data["workerId"] == "D4PENDING"
