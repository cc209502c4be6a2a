"""Staff preview tests at /admin/tests/{id}/preview in Chromium, as a participant would take them, with the
'Preview' marker on every step: the demo survey along its branch and the image preference test to the end
of the preview; a landing-page and a pricing test to their first steps. Afterwards the database holds no
new review, reward, review session (pending review) or e-mail, and no invite changed; the browser kept
nothing either (no local answers, no 'completed' cookie)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect
from sqlalchemy import text

from portal.domain.staff import roles
from portal.models import Test
from tests.e2e.helpers import sign_in
from tests.e2e.taking import invited, named
from tests.e2e.test_admin import STAFF_PASSWORD, staff
from tests.e2e.test_highlight import LANDING, PRICING
from tests.e2e.test_preference import IMAGE
from tests.e2e.test_survey import FIFTEEN_WORDS, answer_influencer_route_up_to_job_title, continue_to, shot, survey_test

NOTHING_STORED = "You see this test as a participant would. Nothing you answer is stored."


@pytest.fixture(autouse=True)
def accept_dialogs(page: Page) -> None:
    page.on("dialog", lambda dialog: dialog.accept())


def stored(db, test_id: int) -> dict:
    """Everything a taking could have written for this test (and every e-mail)."""
    db.expire_all()
    count = lambda sql: db.execute(text(sql), {"t": test_id}).scalar_one()  # noqa: E731
    return {
        "reviews": count("SELECT count(*) FROM review WHERE test_id = :t"),
        "rewards": count("SELECT count(*) FROM reward WHERE test_id = :t"),
        "sessions": count("SELECT count(*) FROM review_session WHERE test_id = :t"),
        "screener": count("SELECT count(*) FROM screener_response WHERE test_id = :t"),
        "outbox": db.execute(text("SELECT count(*) FROM outbox_email")).scalar_one(),
        "audit": db.execute(text("SELECT count(*) FROM audit_log")).scalar_one(),
        "invites": sorted(
            tuple(r)
            for r in db.execute(
                text("SELECT id, status, amount_cents FROM invite WHERE test_id = :t"), {"t": test_id}
            ).all()
        ),
    }


def marked(page: Page) -> None:
    """The 'Preview' marker is in view (the bar stays at the top on every step)."""
    expect(page.locator("#preview-marker")).to_be_visible()
    expect(page.locator("#preview-marker")).to_have_text("Preview")
    expect(page.locator("#preview-note")).to_have_text(NOTHING_STORED)
    assert page.locator("#preview-marker").bounding_box()["y"] >= 0


def open_preview(page: Page, base: str, test: Test) -> None:
    page.goto(f"{base}/admin/tests/{test.id}/preview")
    marked(page)
    expect(page.locator("#preview-test-name")).to_have_text(test.name)
    expect(page.locator("#preview-leave")).to_have_attribute("href", f"/admin/tests/{test.id}")


def kept_nothing_in_the_browser(page: Page, test: Test) -> None:
    assert page.evaluate("Object.keys(window.localStorage).filter(k => /answer|completed|highlight/.test(k))") == []
    assert "completedTests" not in page.evaluate("document.cookie")
    expect(page).to_have_url(re.compile(rf"/admin/tests/{test.id}/preview$"))


def test_staff_preview_the_survey_through_its_branch_to_the_end_and_nothing_is_stored(page: Page, app_server, db):
    test = survey_test(db)
    invitee = invited(db, test, cents=2500)  # someone's open invite: the preview must leave it alone
    me = staff(db, roles.TEAM_MANAGER)
    before = stored(db, test.id)
    sign_in(page, app_server.url, me.email, STAFF_PASSWORD)
    open_preview(page, app_server.url, test)
    expect(page.locator("#survey-welcome")).to_be_visible()
    shot(page, "preview-survey-welcome-1280")
    page.click("#start-survey")
    expect(page.locator("#survey-progress")).to_have_text("Question 1/13")
    expect(page.locator("#taking-timer-text")).to_contain_text(
        re.compile(r"\d\d:\d\d left")
    )  # the time runs as for a participant
    marked(page)
    page.click("#survey-continue")
    expect(page.locator("#survey-error")).to_have_text("Answer is required")  # the same live rules
    answer_influencer_route_up_to_job_title(page)  # the branch: question 1 leads on to question 5
    marked(page)
    page.fill("#survey-text", "Too short answer")
    page.click("#survey-continue")
    expect(page.locator("#survey-error")).to_have_text("Your answer is too short, please make it at least 15 words.")
    page.fill("#survey-text", FIFTEEN_WORDS)
    continue_to(page, "Question 13/13")
    marked(page)
    expect(page.locator("[data-sonner-toast]")).to_have_count(0, timeout=10000)  # the start message has gone
    page.set_viewport_size({"width": 375, "height": 800})
    marked(page)
    shot(page, "preview-survey-question-375")
    page.set_viewport_size({"width": 1280, "height": 900})
    shot(page, "preview-survey-question-1280")
    page.click("#survey-submit")
    expect(page.locator("#preview-end-title")).to_have_text("End of preview")
    expect(page.locator("#preview-end-thank-you")).to_contain_text("Thank you!")
    expect(page.locator("#survey-thank-you")).to_be_hidden()
    marked(page)
    shot(page, "preview-survey-end-1280")
    kept_nothing_in_the_browser(page, test)
    assert stored(db, test.id) == before
    # Previewing again starts afresh, at the welcome page.
    page.click("#preview-again")
    expect(page.locator("#survey-welcome")).to_be_visible()
    marked(page)
    assert invitee.id and stored(db, test.id) == before


def test_staff_preview_the_image_preference_test_to_the_end_and_nothing_is_stored(page: Page, app_server, db):
    test = named(db, IMAGE)
    invited(db, test, cents=800)
    me = staff(db, roles.SUPER_ADMIN)
    before = stored(db, test.id)
    sign_in(page, app_server.url, me.email, STAFF_PASSWORD)
    open_preview(page, app_server.url, test)
    page.click("#preference-start")
    expect(page.locator("#taking-timer-text")).to_contain_text(re.compile(r"\d\d:\d\d left"))
    expect(page.locator("[data-concept]")).to_have_count(3)
    marked(page)
    expect(page.locator("#preference-continue")).to_be_disabled()
    page.locator("label[for=concept-1]").click()
    expect(page.locator("#concept-1")).to_be_checked()
    page.click("#preference-continue")
    expect(page.locator("#follow-up")).to_contain_text("Why did you choose concept")
    marked(page)
    page.fill("#preference-answer", "Too short")
    page.click("#preference-next")
    expect(page.locator("#answer-error")).to_have_text("Your answer is too short, please make it at least 15 words.")
    page.fill("#preference-answer", FIFTEEN_WORDS)
    expect(page.locator("#preference-word-count")).to_have_text("16 words")
    page.click("#preference-next")
    expect(page.locator("#details-submit")).to_have_text("Submit feedback")
    marked(page)
    page.click("#details-submit")
    expect(page.locator("#preview-end-title")).to_have_text("End of preview")
    marked(page)
    kept_nothing_in_the_browser(page, test)
    assert stored(db, test.id) == before


@pytest.mark.parametrize("name,title", [(LANDING, "Landing page test"), (PRICING, "Pricing test")])
def test_staff_open_a_highlight_and_a_pricing_preview_at_their_first_steps(page: Page, app_server, db, name, title):
    test = named(db, name)
    me = staff(db, roles.TEAM_OWNER)
    before = stored(db, test.id)
    sign_in(page, app_server.url, me.email, STAFF_PASSWORD)
    open_preview(page, app_server.url, test)
    expect(page.locator("#highlight-title")).to_have_text(title)
    expect(page.locator("#start-test")).to_have_text("Start test now")
    page.click("#start-test")
    expect(page.locator("#taking-timer-text")).to_contain_text(re.compile(r"\d\d:\d\d left"))
    marked(page)
    if name == LANDING:
        expect(page.locator("#frame-of-mind-text")).to_contain_text("Imagine you are looking for a faster way")
        page.click("#frame-confirm")
    expect(page.locator("#precheck-title")).to_be_visible()
    marked(page)
    shot(page, f"preview-{test.id}-precheck-1280")
    kept_nothing_in_the_browser(page, test)
    assert stored(db, test.id) == before


def test_a_participant_gets_the_not_found_page_and_no_test(page: Page, app_server, db):
    test = survey_test(db)
    who = invited(db, test, cents=2500)
    before = stored(db, test.id)
    sign_in(page, app_server.url, who.email, "Correct-Horse-42!")
    page.goto(f"{app_server.url}/admin/tests/{test.id}/preview")
    expect(page.locator("#not-found-text")).to_be_visible()
    expect(page.locator("#preview-marker")).to_have_count(0)
    expect(page.locator("#survey-welcome")).to_have_count(0)
    assert stored(db, test.id) == before
