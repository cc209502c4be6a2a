"""Notifications (issue 38, item 1) in Chromium: the notifications page turns a kind off and on; a real notification
e-mail, queued by the portal and received by the loopback SMTP server, carries a one-click unsubscribe link that
works without signing in, after which that kind is no longer queued; a forged link gets a clear page.

Screenshots of the notifications page and of the unsubscribe page go to $SCREENSHOT_DIR (or the test's tmp dir).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page, expect
from sqlmodel import Session, select

from portal.models import NotificationOptOut, OutboxEmail, Review, Reward, Test
from portal.models._base import utcnow
from tests.e2e.helpers import sign_in
from tests.support.factories import make_participant, unique_email
from tests.support.polling import polled

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "Correct-Horse-42!"
INVITES = "A new paid test is waiting for me"
APPROVED = "My answers to a test were approved"


def _shots(tmp_path: Path) -> Path:
    out = Path(os.environ.get("SCREENSHOT_DIR") or tmp_path)
    out.mkdir(parents=True, exist_ok=True)
    return out


def _opt_outs(app_server, account_id: int) -> list[str]:
    with app_server.db() as s:
        return sorted(s.exec(select(NotificationOptOut.kind).where(NotificationOptOut.account_id == account_id)).all())


def _old_review(db: Session, account_id: int) -> None:
    """A submitted review nobody decided for 20 days: the automatic approval approves it."""
    test = Test(name=f"Notify e2e {uuid.uuid4().hex[:8]}", product_type="survey", status="running")
    db.add(test)
    db.flush()
    review = Review(
        test_id=test.id,
        account_id=account_id,
        respondent_key=f"account:{account_id}",
        kind="survey",
        created_at=utcnow() - timedelta(days=20),
    )
    db.add(review)
    db.flush()
    db.add(
        Reward(review_id=review.id, account_id=account_id, amount_cents=2500, test_id=test.id, product_type="survey")
    )
    db.commit()


def _auto_approve(app_server) -> None:
    env = dict(app_server.env)
    subprocess.run(
        [sys.executable, "-m", "portal.cli", "auto-approve-reviews"],
        env=env,
        cwd=ROOT,
        check=True,
        capture_output=True,
        timeout=120,
    )


def test_a_participant_turns_a_kind_off_and_on_again_on_the_notifications_page(page: Page, app_server, db, tmp_path):
    email = unique_email("notify")
    account = make_participant(db, email=email, password=PASSWORD)
    sign_in(page, app_server.url, email, PASSWORD)

    page.locator("#account-menu").click()
    page.get_by_role("menuitem", name="Notifications").click()
    expect(page).to_have_url(re.compile(r"/notifications/?$"))
    expect(page.get_by_role("heading", name="Notifications")).to_be_visible()
    switch = page.get_by_role("switch", name=INVITES, exact=True)
    expect(switch).to_be_checked()

    switch.click()
    expect(page.get_by_text("Turned off: we will not e-mail you about this.")).to_be_visible()
    expect(switch).not_to_be_checked()
    assert polled(lambda: _opt_outs(app_server, account.id), lambda k: k == ["invite"], timeout=10) == ["invite"]
    page.screenshot(path=str(_shots(tmp_path) / "notifications-1280.png"), full_page=True)

    page.reload()
    page.wait_for_selector("#portal-ready", state="attached")
    expect(page.get_by_role("switch", name=INVITES, exact=True)).not_to_be_checked()
    expect(page.get_by_role("switch", name=APPROVED, exact=True)).to_be_checked()
    page.get_by_role("switch", name=INVITES, exact=True).click()
    expect(page.get_by_role("switch", name=INVITES, exact=True)).to_be_checked()
    assert polled(lambda: _opt_outs(app_server, account.id), lambda k: k == [], timeout=10) == []


def test_the_unsubscribe_link_of_a_real_e_mail_works_without_signing_in(
    context: BrowserContext, app_server, db, smtp_server, tmp_path
):
    email = unique_email("unsub")
    account = make_participant(db, email=email, password=PASSWORD)
    _old_review(db, account.id)
    _auto_approve(app_server)

    mail = smtp_server.wait_for(email, subject_contains="Your answers were approved")
    assert str(mail.message["List-Unsubscribe-Post"]) == "List-Unsubscribe=One-Click"
    header = str(mail.message["List-Unsubscribe"])
    assert header.startswith(f"<{app_server.url}/unsubscribe/") and header.endswith(">")
    assert f"{app_server.url}/notifications" in mail.body

    page = context.new_page()  # a browser that never signed in
    page.goto(header[1:-1])
    expect(page.get_by_role("heading", name="Unsubscribe")).to_be_visible()
    expect(page.get_by_text(APPROVED)).to_be_visible()
    assert _opt_outs(app_server, account.id) == []  # opening the link changes nothing
    page.screenshot(path=str(_shots(tmp_path) / "unsubscribe-1280.png"), full_page=True)
    page.get_by_role("button", name="Unsubscribe").click()
    expect(page.get_by_role("heading", name="You are unsubscribed")).to_be_visible()
    assert _opt_outs(app_server, account.id) == ["review-approved"]

    # The next approval of this participant queues no e-mail.
    _old_review(db, account.id)
    _auto_approve(app_server)
    with app_server.db() as s:
        queued = s.exec(
            select(OutboxEmail).where(OutboxEmail.to_address == email, OutboxEmail.kind == "review-approved")
        ).all()
        decided = s.exec(select(Review).where(Review.account_id == account.id, Review.status == "approved")).all()
    assert len(decided) == 2 and len(queued) == 1


@pytest.mark.allow_console_errors(r"status of 400")
def test_a_forged_unsubscribe_link_gets_a_clear_page(context: BrowserContext, app_server):
    page = context.new_page()
    response = page.goto(f"{app_server.url}/unsubscribe/WzEsImludml0ZSJd.forged-signature")
    assert response is not None and response.status == 400
    expect(page.get_by_role("heading", name="Link not valid")).to_be_visible()
    expect(page.get_by_role("link", name="All notification settings")).to_be_visible()
