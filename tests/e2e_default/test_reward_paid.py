"""A fresh clone's `make run`, all the way to a paid reward (issue 37): the demo participant takes the demo survey,
staff approve the review on /admin/reviews, the payout job (every worker's, PAYOUT_EVERY_SECONDS) orders the reward
from Tremendous's local stand-in, and the participant's rewards tab shows 'Sent' (the link is in the e-mail) and
then, after the stand-in delivered the link and posted its signed webhook, 'Paid' with the date. The stand-in's
inbox holds the link e-mail to the participant."""

from __future__ import annotations

from playwright.sync_api import Browser, Locator, Page, expect
from sqlmodel import select

from portal.domain.payouts import SENT_DETAIL
from portal.domain.table import format_date
from portal.models import Account, Reward
from portal.models._base import utcnow
from portal.services.seeding import DEMO_ADMIN
from tests.e2e.helpers import DEMO_EMAIL, DEMO_PASSWORD, sign_in
from tests.e2e.test_admin import open_admin, row, table_search
from tests.e2e.test_survey import answer_influencer_route_up_to_job_title, finish, shot, start, survey_test
from tests.support import two_factor
from tests.support.polling import polled


def stage_after_reloads(page: Page, base: str, reward_row: Locator, wanted: str) -> str:
    """The participant opens the rewards tab again until the reward's stage reads `wanted` (what a person does
    while waiting for a payment): the stage last seen."""

    def seen() -> str:
        page.goto(f"{base}/")
        page.click("#tab-rewards")
        badge = reward_row.locator('[data-testid="reward-stage"]')
        expect(badge).to_be_visible()
        return badge.inner_text()

    return polled(seen, lambda stage: stage == wanted, timeout=60, every=0.2)


def test_the_demo_participant_s_reward_is_ordered_sent_and_paid_through_the_stand_in(
    page: Page, browser: Browser, app_server, db
):
    base = app_server.url
    test = survey_test(db)
    page.on("dialog", lambda dialog: dialog.accept())  # leaving a timed test asks first

    # The demo participant takes the demo survey (an open invite from the demo data).
    sign_in(page, base, DEMO_EMAIL, DEMO_PASSWORD)
    start(page, base, test)
    answer_influencer_route_up_to_job_title(page)
    finish(page)
    db.expire_all()
    dana = db.exec(select(Account).where(Account.email == DEMO_EMAIL)).one()
    reward = db.exec(select(Reward).where(Reward.test_id == test.id, Reward.account_id == dana.id)).one()
    page.goto(f"{base}/")
    page.click("#tab-rewards")
    reward_row = row(page, "rewards", reward.id)
    expect(reward_row.locator('[data-testid="reward-stage"]')).to_have_text("Submitted")

    # The demo staff admin approves it (with two-factor sign-in on, as staff must have it).
    admin_id = db.exec(select(Account.id).where(Account.email == DEMO_ADMIN.email)).one()
    two_factor.enable(db, admin_id, secret_key=app_server.env["SECRET_KEY"])
    staff = browser.new_context(viewport={"width": 1400, "height": 900})
    staff.set_default_timeout(20000)
    admin = staff.new_page()
    sign_in(admin, base, DEMO_ADMIN.email, DEMO_ADMIN.password)
    open_admin(admin, base, f"/admin/reviews?test={test.id}")
    table_search(admin, "admin-reviews", DEMO_EMAIL)
    review_row = admin.locator('[data-testid="admin-reviews-row"]').first
    expect(review_row).to_contain_text("Submitted")
    review_row.get_by_role("button", name="Open").click()
    expect(admin.locator("#review-answers")).to_contain_text("Head of data")
    admin.click("#detail-approve")
    expect(admin.get_by_text("1 review approved.")).to_be_visible()
    staff.close()

    # The payout job orders it from the stand-in: 'Sent', the link is in the e-mail.
    assert stage_after_reloads(page, base, reward_row, "Sent") == "Sent"
    today = format_date(utcnow())
    expect(reward_row.locator('[data-testid="reward-stage-detail"]')).to_have_text(f"{SENT_DETAIL} (sent {today})")
    shot(page, "default-run-reward-sent-1280")

    # The stand-in delivers the link and posts its signed webhook: 'Paid', with the date.
    assert stage_after_reloads(page, base, reward_row, "Paid") == "Paid"
    expect(reward_row.locator('[data-testid="reward-stage-detail"]')).to_have_text(f"Paid on {today}")
    expect(reward_row).to_contain_text("Paid")
    shot(page, "default-run-reward-paid-1280")

    # The stand-in's inbox holds the link e-mail to the participant, delivered.
    inbox = page.context.new_page()  # the stand-in's plain page, not the portal's
    inbox.goto(f"{base}/local-payouts/inbox")
    mail = inbox.get_by_role("listitem").filter(has_text=DEMO_EMAIL)
    expect(mail).to_have_count(1)
    expect(mail).to_contain_text("Delivered")
    expect(mail.get_by_role("link", name="Open the reward")).to_be_visible()
