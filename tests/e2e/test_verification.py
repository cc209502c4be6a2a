"""Verifying both e-mails by clicking the links received over SMTP, and the banners' Resend."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.e2e.helpers import fill_sign_in, sign_in
from tests.support.factories import make_participant


def test_work_email_verified_from_the_banner_resend(page: Page, app_server, db, smtp_server):
    account = make_participant(db, work_email_verified=False, first_name="Wren")
    sign_in(page, app_server.url, account.email, "Correct-Horse-42!")
    banner = page.locator("#banner-work")
    expect(banner).to_contain_text(account.work_email)
    expect(page.locator("#update-emails-work")).to_have_text("Update your email addresses")
    page.click("#resend-work")
    expect(page.get_by_text("New verification email was sent.")).to_be_visible()
    page.click("#resend-work")  # again at once: the toast says how long to wait
    expect(page.get_by_text(re.compile(r"Please wait \d+ seconds before asking for another email\."))).to_be_visible()

    mail = smtp_server.wait_for(account.work_email, subject_contains="Verify your work email")
    link = next(url for url in mail.links() if "verify-email" in url)
    page.goto(link)
    expect(page.get_by_text(f"Your email {account.work_email} has been verified")).to_be_visible()
    expect(page).to_have_url(re.compile(r"/$"))  # ev and email are removed from the address
    expect(page.locator("#banner-work")).to_have_count(0)

    # The same link again: already verified, back home with the warning.
    page.goto(link)
    expect(page.get_by_text(f"Your email {account.work_email} is already verified")).to_be_visible()
    expect(page).to_have_url(re.compile(r"/$"))


def test_personal_email_verified_by_link_then_private_pages_open(page: Page, app_server, db, smtp_server):
    account = make_participant(db, email_verified=False, first_name="Pia")
    page.goto(f"{app_server.url}/sign-in")
    fill_sign_in(page, account.email, "Correct-Horse-42!")
    expect(page).to_have_url(re.compile(r"/verify-account/?\?from_sign_in=true"))
    page.goto(f"{app_server.url}/thank-you")
    expect(page.locator("#thank-you-title")).to_have_text("Thanks for signing up!")
    expect(page.locator("#banner-personal")).to_contain_text(account.email)
    page.click("#resend-personal")
    mail = smtp_server.wait_for(account.email, subject_contains="Verify your email")
    page.goto(next(url for url in mail.links() if "verify-email" in url))
    expect(page.get_by_text(f"Your email {account.email} has been verified")).to_be_visible()
    expect(page.locator("#header-user-name")).to_have_text("Pia Tester")


def test_a_made_up_link_verifies_nothing(page: Page, app_server):
    page.goto(f"{app_server.url}/api/account/verify-email?token=made-up-token-aaaaaaaaaaaaaaaaaaaaaaaaa")
    expect(page).to_have_url(re.compile(r"/sign-in"))
    expect(
        page.get_by_text("This verification link is invalid or has expired. Please request a new one.")
    ).to_be_visible()


def test_thank_you_after_sign_up(page: Page, app_server, db):
    account = make_participant(db)
    sign_in(page, app_server.url, account.email, "Correct-Horse-42!", path="/thank-you")
    expect(
        page.get_by_text(
            "Your application will be reviewed. You will get a confirmation to your personal email if you pass "
            "verification."
        )
    ).to_be_visible()
    for provider in ("Gmail", "Outlook", "Yahoo"):
        expect(page.get_by_role("button", name=f"Whitelist us in {provider}")).to_be_visible()
    page.get_by_role("button", name="Whitelist us in Outlook").click()
    expect(page.get_by_text("Safe senders and domains", exact=False)).to_be_visible()
    page.get_by_role("button", name="You are all set! Back to Dashboard.").click()
    expect(page).to_have_url(re.compile(r"/$"))


def test_a_participant_waiting_for_verification_is_told_why_tests_wait(page: Page, app_server, db):
    """Issue 40: both e-mails confirmed, the profile not completed and not verified by staff yet (so not verified
    by the spec's rule): the home page says why no invite comes."""
    from tests.e2e.test_accessibility import assert_accessible

    waiting = make_participant(db, verified=False)
    waiting.stage = "registered"
    db.add(waiting)
    db.commit()
    sign_in(page, app_server.url, waiting.email, "Correct-Horse-42!")
    banner = page.locator("#banner-awaiting-verification")
    expect(banner).to_contain_text("Your account is not verified yet. Invites to paid tests start once we have")
    expect(banner.get_by_role("link", name="Complete your profile")).to_have_attribute("href", "/profile")
    assert_accessible(page, "home, waiting for verification")
    page.context.clear_cookies()
    verified = make_participant(db)
    sign_in(page, app_server.url, verified.email, "Correct-Horse-42!")
    expect(page.locator("#header-user-name")).to_be_visible()
    expect(page.locator("#banner-awaiting-verification")).to_have_count(0)
