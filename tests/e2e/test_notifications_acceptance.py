"""Issue 38's notifications in Chromium, against the loopback SMTP server: staff invite the demo participant on the
invite page and the invite e-mail arrives within the minute, with a link that opens the test; the reminder (the
reminder job, once), verification (staff verify a participant on the participants page), rejection (with its
reason) and payment (the payout job orders the reward from the payout stand-in) e-mails each arrive once; the
invite e-mail's one-click unsubscribe turns invites off without signing in, and the next invite sends no e-mail.

The decisions are made with the staff services in the app's database (the reviews page's own browser tests cover
deciding there); every e-mail is the app's own, delivered by its sender."""

from __future__ import annotations

import subprocess
import sys
import uuid
from datetime import timedelta
from pathlib import Path

from playwright.sync_api import Browser, BrowserContext, Page, expect
from sqlalchemy import text
from sqlmodel import select

from portal.domain.staff import roles
from portal.models import Account, Invite, OutboxEmail, Review, Reward, Test
from portal.models._base import utcnow
from portal.services.admin import reviews as staff_reviews
from portal.services.seeding import DEMO_PARTICIPANT
from tests.e2e.helpers import sign_in
from tests.e2e.test_admin import STAFF_PASSWORD, open_admin, row, staff, table_search
from tests.e2e.test_admin_confirmations import own_test
from tests.support.factories import make_participant
from tests.support.polling import polled

ROOT = Path(__file__).resolve().parents[2]


def cli(app_server, command: str) -> None:
    subprocess.run(
        [sys.executable, "-m", "portal.cli", command],
        env=dict(app_server.env),
        cwd=ROOT,
        check=True,
        capture_output=True,
        timeout=120,
    )


def invite_on_the_page(desk: Page, base: str, test: Test, search: str, account_id: int) -> None:
    open_admin(desk, base, f"/admin/tests/{test.id}/invite")
    table_search(desk, "invite-participants", search)
    row(desk, "invite-participants", account_id).get_by_role("checkbox").click()
    desk.click("#invite-send")
    desk.click("#invite-confirm-confirm")
    expect(desk.locator("#invite-result")).to_have_text("1 invite sent.")


def reviewed(db, test: Test, account_id: int) -> Review:
    review = Review(
        test_id=test.id, account_id=account_id, respondent_key=f"account:{account_id}", kind="survey", answers={}
    )
    db.add(review)
    db.flush()
    db.add(
        Reward(review_id=review.id, account_id=account_id, amount_cents=2500, test_id=test.id, product_type="survey")
    )
    db.commit()
    return review


def queued(db, to: str, kind: str) -> int:
    db.expire_all()
    return len(db.exec(select(OutboxEmail).where(OutboxEmail.to_address == to, OutboxEmail.kind == kind)).all())


def only_one(smtp_server, to: str, subject: str, about: str = ""):
    """The one message to `to` with `subject` (and `about` in its body: other tests write to the demo participant
    too), after waiting for it; a second one fails."""

    def mine(m) -> bool:
        return to in m.to and subject in m.subject and about in m.body

    smtp_server.wait_for(to, subject_contains=subject, timeout=60)
    found = polled(lambda: [m for m in list(smtp_server.messages) if mine(m)], bool, timeout=60)
    assert len(found) == 1, [m.subject for m in found]
    return found[0]


def test_invite_reminder_verification_rejection_and_payment_e_mails_arrive_once_and_unsubscribe_works(
    page: Page, browser: Browser, context: BrowserContext, app_server, db, smtp_server
):
    base = app_server.url
    dana = db.exec(select(Account).where(Account.email == DEMO_PARTICIPANT.email)).one()
    manager = staff(db, roles.TEAM_OWNER)
    desk = browser.new_page(viewport={"width": 1280, "height": 900})
    sign_in(desk, base, manager.email, STAFF_PASSWORD)

    # The invite: sent on the invite page, received within the minute, its link opens the test.
    test = own_test(db)
    invite_on_the_page(desk, base, test, DEMO_PARTICIPANT.email, dana.id)
    link = f"{base}/test/{test.id}/rate"
    invite = only_one(smtp_server, dana.email, "A new paid test for you: Survey", link)
    assert "24 hours" in invite.body and str(invite.message["List-Unsubscribe-Post"]) == "List-Unsubscribe=One-Click"
    page.set_viewport_size({"width": 1280, "height": 900})
    sign_in(page, base, DEMO_PARTICIPANT.email, DEMO_PARTICIPANT.password)
    page.goto(link)
    expect(page.locator("#survey-welcome")).to_be_visible()

    # The reminder: the invite ends within the reminder window; the job runs twice, one e-mail.
    db.execute(
        text("UPDATE invite SET expires_at = :ends WHERE test_id = :t AND account_id = :a"),
        {"ends": utcnow() + timedelta(hours=2), "t": test.id, "a": dana.id},
    )
    db.commit()
    cli(app_server, "remind-invites")
    cli(app_server, "remind-invites")
    only_one(smtp_server, dana.email, "Your invite to a Survey test ends soon", link)

    # Verification: staff verify a new participant on the participants page.
    tag = uuid.uuid4().hex[:6]
    newcomer = make_participant(db, first_name="Vera", last_name=f"Verify{tag}", verified=False)
    open_admin(desk, base, "/admin/participants")
    table_search(desk, "admin-participants", f"Verify{tag}")
    row(desk, "admin-participants", newcomer.id).get_by_role("checkbox").click()
    desk.click("#bulk-verify")
    desk.click("#bulk-confirm-confirm")
    expect(desk.get_by_text("1 participant verified.")).to_be_visible()
    only_one(smtp_server, newcomer.email, "account is verified")

    # Rejection with its reason, and an approval whose reward the payout job sends (two rounds: one e-mail each).
    rejected = reviewed(db, own_test(db), dana.id)
    approved = reviewed(db, own_test(db), dana.id)
    before = {kind: queued(db, dana.email, kind) for kind in ("review-approved", "reward-sent")}
    staff_reviews.decide(db, actor_id=manager.id, review_ids=[rejected.id], approve=False, reason="low-effort")
    staff_reviews.decide(db, actor_id=manager.id, review_ids=[approved.id], approve=True)
    db.commit()
    only_one(smtp_server, dana.email, "Your answers were not accepted: Survey", "Low effort answers")
    cli(app_server, "pay-rewards")
    cli(app_server, "pay-rewards")
    smtp_server.wait_for(dana.email, subject_contains="Your reward of $25 was sent", timeout=60)
    assert {kind: queued(db, dana.email, kind) - n for kind, n in before.items()} == {
        "review-approved": 1,
        "reward-sent": 1,
    }

    # One-click unsubscribe from the invite e-mail, in a browser that never signed in.
    unsubscribe = str(invite.message["List-Unsubscribe"])[1:-1]
    outsider = context.new_page()
    outsider.goto(unsubscribe)
    outsider.get_by_role("button", name="Unsubscribe").click()
    expect(outsider.get_by_role("heading", name="You are unsubscribed")).to_be_visible()

    # The next invite is made, and no e-mail is sent for it.
    later = own_test(db)
    invite_on_the_page(desk, base, later, DEMO_PARTICIPANT.email, dana.id)
    db.expire_all()
    assert db.exec(select(Invite).where(Invite.test_id == later.id, Invite.account_id == dana.id)).one()
    link_later = f"{base}/test/{later.id}/rate"
    for_later = db.exec(
        select(OutboxEmail).where(OutboxEmail.to_address == dana.email, OutboxEmail.link == link_later)
    ).all()
    assert for_later == []
