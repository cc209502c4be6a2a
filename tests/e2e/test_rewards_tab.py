"""The rewards tab with a reward in each stage of the payout ledger (issue 37), in Chromium: Submitted (in review),
Approved, Sending, Sent, Paid, Failed (with the reason and 'Send again'), Rejected and a referral bonus; the totals
(paid, on the way, in review, this year); the payment e-mail dialog (a bad address is refused with its message, a
good one is saved and 'Send again' then waits 48 hours). axe finds nothing at 375 and 1280 px; the page does not
scroll sideways on a phone and the totals wrap there. Screenshots: $SCREENSHOT_DIR/rewards-tab-*.png."""

from __future__ import annotations

import os
import uuid
from datetime import timedelta
from pathlib import Path

from playwright.sync_api import Page, expect

from portal.domain import payouts as payout_rules
from portal.domain.profile_rules import email_error
from portal.domain.table import format_date
from portal.models import Review, Reward, Test
from portal.models._base import utcnow
from portal.services.payout_requests import EMAIL_REQUIRED
from tests.e2e.helpers import animations_finished, sign_in
from tests.e2e.test_accessibility import assert_accessible
from tests.e2e.test_admin import row
from tests.e2e.test_survey import PASSWORD
from tests.support.factories import make_participant

BOUNCED = "The recipient's e-mail address bounced."


def shots() -> Path:
    out = Path(os.environ.get("SCREENSHOT_DIR") or "/tmp/rewards-tab-shots")
    out.mkdir(parents=True, exist_ok=True)
    return out


def _reward(
    db, account_id: int, cents: int, *, review_status: str | None, product_type: str = "survey", **values
) -> Reward:
    """A reward of `cents` for a review of a test of its own (None: a referral bonus, with no review)."""
    review_id = None
    if review_status is not None:
        test = Test(name=f"Rewards tab e2e {uuid.uuid4().hex[:8]}", product_type=product_type)
        db.add(test)
        db.flush()
        review = Review(
            test_id=test.id,
            account_id=account_id,
            respondent_key=f"account:{account_id}",
            kind="survey",
            status=review_status,
            reject_reason="low-effort" if review_status == "rejected" else None,
            decided_at=None if review_status == "submitted" else utcnow(),
        )
        db.add(review)
        db.flush()
        review_id = review.id
    reward = Reward(review_id=review_id, account_id=account_id, amount_cents=cents, **values)
    db.add(reward)
    db.flush()
    return reward


def seeded(db):
    """A participant with one reward in each stage (the job would order the approved one: tests/e2e's app runs it
    once a day, see conftest)."""
    who = make_participant(db, password=PASSWORD, first_name="Lena", last_name="Ledger")
    now, later = utcnow(), utcnow() + timedelta(days=1)
    approved = {"approved_at": now - timedelta(hours=2)}
    rewards = {
        "Submitted": _reward(db, who.id, 1000, review_status="submitted", product_type="competitor-comparison"),
        "Approved": _reward(db, who.id, 2500, review_status="approved", **approved),
        "Sending": _reward(
            db, who.id, 3000, review_status="approved", payout="sending", next_attempt_at=later, **approved
        ),
        "Sent": _reward(
            db,
            who.id,
            3500,
            review_status="approved",
            payout="sent",
            sent_at=now - timedelta(hours=1),
            provider_status="DELIVERED",
            next_attempt_at=later,
            **approved,
        ),
        "Paid": _reward(
            db, who.id, 4000, review_status="approved", payout="paid", status="EXECUTED", paid_on=now, **approved
        ),
        "Failed": _reward(
            db,
            who.id,
            4500,
            review_status="approved",
            payout="failed",
            status="FAILED",
            failure_reason=BOUNCED,
            payment_email=who.email,
            **approved,
        ),
        "Rejected": _reward(db, who.id, 5000, review_status="rejected", status="CANCELED"),
        "Bonus": _reward(
            db, who.id, 2000, review_status=None, kind="referral-bonus", payout="paid", status="EXECUTED", paid_on=now
        ),
    }
    db.commit()
    return who, {stage: r.id for stage, r in rewards.items()}


def test_the_rewards_tab_in_every_stage_its_totals_and_the_payment_e_mail(page: Page, app_server, db):
    who, ids = seeded(db)
    today = format_date(utcnow())
    # Read back what was seeded: 'sent an hour ago' is yesterday between midnight and 1 a.m. UTC.
    sent_on = format_date(db.get(Reward, ids["Sent"]).sent_at)
    expected_by = format_date(payout_rules.expected_by(db.get(Reward, ids["Approved"]).approved_at))
    page.set_viewport_size({"width": 1280, "height": 900})
    sign_in(page, app_server.url, who.email, PASSWORD)
    page.click("#tab-rewards")
    expect(page.locator('#rewards [data-testid="rewards-row"]')).to_have_count(len(ids))

    stages = {
        "Submitted": ("Submitted", "Waiting for review"),
        "Approved": ("Approved", f"Expected by {expected_by}"),
        "Sending": ("Sending", f"Expected by {expected_by}"),
        "Sent": ("Sent", f"{payout_rules.SENT_DETAIL} (sent {sent_on})"),
        "Paid": ("Paid", f"Paid on {today}"),
        "Failed": ("Failed", BOUNCED),
        "Rejected": ("Rejected", "Low effort answers"),
        "Bonus": ("Paid", f"Paid on {today}"),
    }
    for name, (stage, detail) in stages.items():
        mine = row(page, "rewards", ids[name])
        expect(mine.locator('[data-testid="reward-stage"]')).to_have_text(stage)
        expect(mine.locator('[data-testid="reward-stage-detail"]')).to_have_text(detail)
    expect(row(page, "rewards", ids["Bonus"])).to_contain_text("Referral bonus")
    failed = row(page, "rewards", ids["Failed"])
    expect(failed).to_contain_text(f"Sent to {who.email}")
    expect(failed.get_by_test_id("reward-resend")).to_be_enabled()
    for name in ids.keys() - {"Failed"}:
        expect(row(page, "rewards", ids[name]).get_by_test_id("reward-resend")).to_have_count(0)

    # Totals: paid $40 + the $20 bonus; on the way $25 + $30 + $35; in review $10; failed and rejected in none.
    expect(page.get_by_test_id("total-paid")).to_have_text("$60")
    expect(page.get_by_test_id("total-on-the-way")).to_have_text("$90")
    expect(page.get_by_test_id("total-in-review")).to_have_text("$10")
    expect(page.get_by_test_id("total-year")).to_have_text("$60")
    expect(page.locator("#reward-totals")).to_contain_text(f"Paid in {utcnow().year}")
    expect(page.locator("#payment-email")).to_have_text(who.email)
    expect(page.locator("#resend-wait")).to_have_count(0)

    assert_accessible(page, "the rewards tab at 1280 px")
    page.screenshot(path=str(shots() / "rewards-tab-1280.png"), full_page=True)
    # Every column is in view at 1280 px: the table does not scroll sideways in its box.
    assert page.evaluate(
        """() => document.querySelector('#rewards table').getBoundingClientRect().right
            <= document.querySelector('#rewards').getBoundingClientRect().right + 1"""
    ), "the rewards table is wider than its box at 1280 px"
    page.set_viewport_size({"width": 375, "height": 800})
    expect(page.get_by_test_id("total-year")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1"), "the page scrolls sideways"
    # The totals wrap rather than overflow: each one is whole on the screen.
    for total in ("total-paid", "total-on-the-way", "total-in-review", "total-year"):
        box = page.get_by_test_id(total).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 375, (total, box)
    assert_accessible(page, "the rewards tab at 375 px")
    page.screenshot(path=str(shots() / "rewards-tab-375.png"), full_page=True)
    page.set_viewport_size({"width": 1280, "height": 900})

    # The payment e-mail: a bad address is refused with its message, an empty one too; a good one is saved.
    page.click("#payment-email-change")
    dialog = page.get_by_role("dialog")
    expect(dialog).to_contain_text("Payment e-mail")
    expect(page.locator("#payment-email-input")).to_have_value(who.email)
    page.fill("#payment-email-input", "not an address")
    page.locator("#payment-email-input").blur()
    page.click("#payment-email-save")
    invalid = email_error("not an address", required_message=EMAIL_REQUIRED)
    expect(page.locator("#payment-email-error")).to_have_text(invalid)
    page.fill("#payment-email-input", "")
    page.locator("#payment-email-input").blur()
    page.click("#payment-email-save")
    expect(page.locator("#payment-email-error")).to_have_text(EMAIL_REQUIRED)
    new = f"lena.{uuid.uuid4().hex[:8]}@example.org"
    page.fill("#payment-email-input", new)
    page.locator("#payment-email-input").blur()
    animations_finished(page, "#payment-email-input")
    assert_accessible(page, "the payment e-mail dialog")
    page.screenshot(path=str(shots() / "rewards-tab-payment-email-1280.png"))
    page.click("#payment-email-save")
    expect(dialog).to_have_count(0)
    expect(page.locator("#payment-email")).to_have_text(new)
    expect(page.locator("#resend-wait")).to_contain_text("a failed payment can be sent again on")
    expect(failed.get_by_test_id("reward-resend")).to_be_disabled()
    page.screenshot(path=str(shots() / "rewards-tab-after-change-1280.png"), full_page=True)
    page.set_viewport_size({"width": 375, "height": 800})
    expect(page.locator("#resend-wait")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    page.screenshot(path=str(shots() / "rewards-tab-after-change-375.png"), full_page=True)
