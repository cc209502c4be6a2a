"""The crowd-work thank-you (test-taking spec, section 6): its 'Close this window' button.

A browser lets a page close only a tab that a script opened (a crowd-work platform opens the test
in a new tab); in a tab the respondent opened themselves it refuses, and the page says so.
"""

from __future__ import annotations

from playwright.sync_api import Page, expect
from sqlmodel import select

from portal.domain.taking import worker_details
from portal.models import Review
from tests.support.people import demo_test


def crowd_work_test(db):
    """The public developer survey on the crowd-work panel."""
    return demo_test(db, "08-public-qualification.json", panel="mturk")


def fill_worker_id(page: Page, worker_id: str) -> None:
    """Type the worker ID and wait for its look-up (it refills the form when it ends)."""
    page.fill("#detail-workerId", worker_id)
    looking_up = page.get_by_text("Looking up your details...")
    expect(looking_up).to_be_visible()
    expect(looking_up).to_have_count(0)


def answer_the_questions(page: Page) -> None:
    """From the welcome page to the personal-info step."""
    expect(page.locator("#survey-welcome")).to_be_visible()
    page.click("#start-survey")
    page.locator("label.survey-option", has_text="Go").first.click()
    page.click("#survey-continue")
    page.fill("#survey-text", "Buildkite")
    page.click("#survey-submit")
    # Crowd-work workers give their worker ID, first name and state.
    expect(page.locator("#personal-info-title")).to_be_visible()


def take_it_to_the_thank_you(page: Page, worker_id: str) -> None:
    answer_the_questions(page)
    fill_worker_id(page, worker_id)
    page.fill("#detail-firstName", "Sam")
    page.locator("#detail-firstName").blur()
    page.select_option("#detail-state", "US-NY")
    page.click("#details-submit")
    expect(page.locator("#thank-you-title")).to_be_visible()


def test_close_this_window_closes_the_tab_the_platform_opened(page: Page, app_server, db):
    test = crowd_work_test(db)
    page.goto(f"{app_server.url}/sign-in")
    with page.context.expect_page() as opened:
        page.evaluate("(url) => { window.open(url, '_blank'); }", f"{app_server.url}/test/{test.id}/rate")
    tab = opened.value
    tab.wait_for_selector("#portal-ready", state="attached", timeout=30000)
    take_it_to_the_thank_you(tab, "A1CROWDWORK")
    close = tab.get_by_role("button", name=worker_details.CLOSE_WINDOW)
    expect(close).to_be_visible()
    expect(tab.locator("#thank-you-home")).to_have_count(0)  # no 'Back to homepage' for crowd-work
    expect(tab.locator("#thank-you-payment")).to_have_text(worker_details.CROWD_WORK_PAYMENT)  # when (issue 40)
    assert "7 to 10 business days" in worker_details.CROWD_WORK_PAYMENT
    with tab.expect_event("close"):
        close.click()
    assert tab.is_closed()
    review = db.exec(select(Review).where(Review.test_id == test.id)).one()
    assert review.worker_data["workerId"] == "A1CROWDWORK" and review.account_id is None


def test_a_tab_the_browser_will_not_close_says_so(page: Page, app_server, db):
    test = crowd_work_test(db)
    page.goto(f"{app_server.url}/test/{test.id}/rate")
    take_it_to_the_thank_you(page, "B2CROWDWORK")
    refused = page.locator("#thank-you-close-refused")
    expect(refused).to_have_text("")
    page.get_by_role("button", name=worker_details.CLOSE_WINDOW).click()
    expect(refused).to_have_text(worker_details.CLOSE_WINDOW_REFUSED)
    expect(refused).to_have_attribute("role", "status")
    assert not page.is_closed()


def test_a_worker_id_typed_just_before_submit_is_kept(page: Page, app_server, db):
    """Submit right after typing the worker ID (within the look-up's 500 ms debounce): it is submitted."""
    test = crowd_work_test(db)
    page.goto(f"{app_server.url}/test/{test.id}/rate")
    answer_the_questions(page)
    page.fill("#detail-firstName", "Sam")
    page.locator("#detail-firstName").blur()
    page.select_option("#detail-state", "US-NY")
    page.fill("#detail-workerId", "C3QUICK")
    page.click("#details-submit")
    expect(page.locator("#thank-you-title")).to_be_visible()
    expect(page.get_by_text("Worker ID is required")).to_have_count(0)
    review = db.exec(select(Review).where(Review.test_id == test.id)).one()
    assert review.worker_data["workerId"] == "C3QUICK"
