"""One appeal, in Chromium (issue 36, item 4): a participant reads the reason and the evidence of a rejection on
the rewards tab and appeals with a message; the staff member who rejected sees the appeal but cannot decide it; a
second staff member overturns it; the review is approved, the reward payable, the participant reads so and is
told by e-mail. Screenshots at 1280 and 375 px ($SCREENSHOT_DIR/appeal-*.png); axe finds nothing."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

from playwright.sync_api import Browser, Page, expect
from sqlmodel import select

from portal.domain.staff import appeals as rules
from portal.domain.staff import roles
from portal.models import OutboxEmail, Review, ReviewAppeal, Reward
from portal.services.admin import reviews
from tests.e2e.helpers import animations_finished, sign_in
from tests.e2e.test_accessibility import assert_accessible
from tests.e2e.test_admin import STAFF_PASSWORD, open_admin, panelists, row, staff
from tests.e2e.test_survey import PASSWORD, survey_test

MESSAGE = "I answered every question myself; my answers are short because the product is new to me."


def shots() -> Path:
    out = Path(os.environ.get("SCREENSHOT_DIR") or "/tmp/appeal-shots")
    out.mkdir(parents=True, exist_ok=True)
    return out


def test_a_participant_appeals_and_a_second_staff_member_overturns(page: Page, browser: Browser, app_server, db):
    base, tag = app_server.url, uuid.uuid4().hex[:6]
    rejecter, second = staff(db, roles.TEAM_MANAGER), staff(db, roles.TEAM_OWNER)
    (author,) = panelists(db, tag, count=1)
    test = survey_test(db)
    review = Review(
        test_id=test.id,
        account_id=author.id,
        respondent_key=f"account:{author.id}",
        kind="survey",
        answers={"0": {"type": "long-text", "value": "ok ok"}},
    )
    db.add(review)
    db.flush()
    reward = Reward(review_id=review.id, account_id=author.id, amount_cents=2500, status="PENDING")
    db.add(reward)
    db.commit()
    reviews.decide(
        session=db,
        actor_id=rejecter.id,
        review_ids=[review.id],
        approve=False,
        reason="low-effort",
        flags=["too-short"],
        evidence="Two words for a ten-question survey.",
    )
    db.commit()

    # The participant reads the reason and the evidence, and appeals.
    page.set_viewport_size({"width": 1280, "height": 900})
    sign_in(page, base, author.email, PASSWORD)
    page.click("#tab-rewards")
    mine = row(page, "rewards", reward.id)
    expect(mine.locator('[data-testid="reward-stage"]')).to_have_text("Rejected")
    expect(mine.locator('[data-testid="reward-stage-detail"]')).to_have_text("Low effort answers")
    expect(mine.locator('[data-testid="reward-evidence"]')).to_have_text(
        "Evidence: Answers far below the word minimum. Two words for a ten-question survey."
    )
    mine.get_by_role("button", name="Appeal").click()
    expect(page.get_by_role("dialog")).to_contain_text("Appeal the rejection")
    page.click("#appeal-send")
    expect(page.locator("#appeal-error")).to_have_text(rules.MESSAGE_REQUIRED)
    page.fill("#appeal-message", MESSAGE)
    animations_finished(page, "#appeal-message")
    assert_accessible(page, "the appeal dialog")
    page.screenshot(path=str(shots() / "appeal-dialog-1280.png"))
    page.click("#appeal-send")
    expect(page.get_by_role("dialog")).to_have_count(0)
    expect(mine.locator('[data-testid="reward-appeal"]')).to_have_text(rules.decision_words(rules.OPEN))
    expect(mine.get_by_role("button", name="Appeal")).to_have_count(0)  # once
    page.screenshot(path=str(shots() / "appeal-participant-1280.png"), full_page=True)
    page.set_viewport_size({"width": 375, "height": 800})
    expect(mine.locator('[data-testid="reward-appeal"]')).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    assert_accessible(page, "the rewards tab with an appeal")
    page.screenshot(path=str(shots() / "appeal-participant-375.png"), full_page=True)
    db.expire_all()
    [appeal] = db.exec(select(ReviewAppeal).where(ReviewAppeal.review_id == review.id)).all()
    assert (appeal.status, appeal.message) == ("open", MESSAGE)

    # The staff member who rejected sees it and cannot decide it.
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(20000)
    theirs = context.new_page()
    sign_in(theirs, base, rejecter.email, STAFF_PASSWORD)
    open_admin(theirs, base, "/admin/appeals")
    own_row = row(theirs, "admin-appeals", appeal.id)
    expect(own_row).to_contain_text(MESSAGE)
    expect(own_row).to_contain_text("You rejected it: another staff member decides.")
    expect(own_row.get_by_role("button", name="Overturn")).to_have_count(0)
    context.close()

    # A second staff member overturns it.
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(20000)
    other = context.new_page()
    sign_in(other, base, second.email, STAFF_PASSWORD)
    open_admin(other, base, "/admin/appeals")
    their_row = row(other, "admin-appeals", appeal.id)
    expect(their_row).to_contain_text("Low effort answers")
    expect(their_row).to_contain_text(f"Rejected by {rejecter.email}")
    assert_accessible(other, "the appeals page")
    other.screenshot(path=str(shots() / "appeal-staff-1280.png"), full_page=True)
    other.set_viewport_size({"width": 375, "height": 800})
    expect(their_row.get_by_role("button", name="Overturn")).to_be_visible()
    other.screenshot(path=str(shots() / "appeal-staff-375.png"), full_page=True)
    other.set_viewport_size({"width": 1280, "height": 900})
    their_row.get_by_role("button", name="Overturn").click()
    expect(other.get_by_role("dialog")).to_contain_text("Overturn the rejection?")
    other.fill("#appeal-note", "Short, but on topic.")
    animations_finished(other, "#appeal-note")
    assert_accessible(other, "the overturn dialog")
    other.click("#appeal-decide-confirm")
    expect(other.get_by_text("Appeal overturned: the participant is told.")).to_be_visible()
    expect(their_row).to_have_count(0)  # the list shows the open appeals
    context.close()
    db.expire_all()
    assert db.get(Review, review.id).status == "approved"
    paid = db.get(Reward, reward.id)
    assert (paid.status, paid.approved_at is not None) == ("PENDING", True)
    [mail] = db.exec(
        select(OutboxEmail).where(OutboxEmail.to_address == author.email, OutboxEmail.kind == "appeal-decided")
    ).all()
    assert "overturned" in mail.body_text

    # The participant reads it.
    page.set_viewport_size({"width": 1280, "height": 900})
    page.reload()
    page.click("#tab-rewards")
    expect(mine.locator('[data-testid="reward-stage"]')).to_have_text("Approved")
    expect(mine.locator('[data-testid="reward-appeal"]')).to_have_text(rules.decision_words(rules.OVERTURNED))
    page.screenshot(path=str(shots() / "appeal-overturned-1280.png"), full_page=True)
