"""Nothing is lost when the backend restarts: the app process is stopped and started mid-survey."""

from __future__ import annotations

from datetime import timedelta

import pytest
from playwright.sync_api import Page, expect
from sqlmodel import func, select

from portal.models import Invite, Review, Reward
from portal.models._base import utcnow
from tests.e2e.helpers import sign_in
from tests.e2e.test_survey import PASSWORD, answer_five, continue_to, start, survey_test
from tests.support.browser_console import WEBSOCKET_REFUSED
from tests.support.drafts import answer_of, wait_for_draft
from tests.support.factories import make_participant


@pytest.mark.allow_console_errors(WEBSOCKET_REFUSED)  # the backend is down for a moment on purpose
def test_answers_survive_a_backend_restart_and_are_accepted_once(page: Page, app_server):
    page.on("dialog", lambda dialog: dialog.accept())
    base = app_server.url
    with app_server.db() as db:
        test = survey_test(db)
        account = make_participant(db, password=PASSWORD)
        db.add(
            Invite(account_id=account.id, test_id=test.id, amount_cents=2500, expires_at=utcnow() + timedelta(hours=24))
        )
        db.commit()
    sign_in(page, base, account.email, PASSWORD)
    start(page, base, test)
    answer_five(page)
    wait_for_draft(app_server, account.id, lambda row: answer_of(row, "discovery-channel") == "peers")

    app_server.restart()
    page.reload()
    page.wait_for_selector("#portal-ready", state="attached", timeout=60000)
    expect(page.locator("#survey-progress")).to_have_text("Question 9/13")
    expect(page.locator("label.survey-option", has_text="Ask peers").locator("input")).to_be_checked()
    page.click("#survey-back")
    expect(page.locator("#survey-progress")).to_have_text("Question 8/13")
    page.click("#survey-back")
    expect(page.locator("#survey-progress")).to_have_text("Question 7/13")
    expect(page.locator("#cell-0-2")).to_be_checked()
    expect(page.locator("#cell-1-0")).to_be_checked()
    page.click("#survey-back")
    expect(page.locator("label.survey-option", has_text="4").locator("input")).to_be_checked()
    continue_to(page, "Question 7/13")
    continue_to(page, "Question 8/13")
    continue_to(page, "Question 9/13")
    continue_to(page, "Question 10/13")
    continue_to(page, "Question 11/13")
    page.fill("#survey-text", "Head of data")
    continue_to(page, "Question 12/13")
    page.fill(
        "#survey-text", "We compared three vendors over two months and picked the one our analysts liked best overall."
    )
    continue_to(page, "Question 13/13")
    page.locator("#survey-submit").dblclick()  # a double click still submits once
    expect(page.locator("#thank-you-title")).to_be_visible()
    with app_server.db() as db:
        reviews = db.exec(select(func.count()).select_from(Review).where(Review.account_id == account.id)).one()
        rewards = db.exec(select(func.count()).select_from(Reward).where(Reward.account_id == account.id)).one()
        stored = db.exec(select(Review).where(Review.account_id == account.id)).one()
    assert (reviews, rewards) == (1, 1)
    assert stored.answers["statements"]["value"] == {"trust": ["agree"], "speed": ["disagree"]}
    assert stored.answers["discovery-channel"]["value"] == "peers"
