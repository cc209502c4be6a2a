"""Password recovery as a person does it: the e-mail arrives through a real SMTP server on loopback."""

from __future__ import annotations

import re
import time

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect
from sqlmodel import select

from portal.models import Account, AuthSession
from portal.settings import settings
from tests.e2e.conftest import wait_for_hydration
from tests.e2e.helpers import fill_sign_in, open_email_form, sign_in
from tests.support.browser_console import failed_request
from tests.support.factories import make_participant, unique_email

OLD = "Correct-Horse-42!"
NEW = "Blue-Tulip-Harbor-9"
LINK_USED = "Link has been already used. Please try again"
RESET_SUBJECT = "Reset your"


def _expect_status(page: Page, key: str, status: str) -> None:
    expect(page.locator(f'#password-requirements li[data-key="{key}"]')).to_have_attribute("data-status", status)


def _request_link(page: Page, base: str, email: str) -> None:
    page.goto(f"{base}/forgot")
    expect(page.get_by_role("heading", name="Forgot your Password?")).to_be_visible()
    expect(page.get_by_text("Please enter your email address.")).to_be_visible()
    button = page.get_by_role("button", name="Send Me Reset Link")
    expect(button).to_be_disabled()  # empty
    page.get_by_label("Email Address").fill(email)
    expect(button).to_be_enabled()
    button.click()
    expect(page.get_by_role("heading", name="Reset link is sent")).to_be_visible()
    expect(page.locator("#forgot-sent-text")).to_contain_text(f"sent a link to reset your password to {email}")


# The current password refused as the new one; the old password refused at sign-in after the reset.
@pytest.mark.allow_console_errors(
    failed_request(400, "/api/account/reset-password"), failed_request(400, "/api/account/sign-in")
)
def test_reset_by_email_link_ends_old_sessions_and_the_link_works_once(
    page: Page, app_server, db, smtp_server, browser: Browser
):
    account = make_participant(db, password=OLD, first_name="Riley", last_name="Reset")

    # A session opened before the reset, on another device.
    other_device = browser.new_context()
    old_page = wait_for_hydration(other_device.new_page())
    sign_in(old_page, app_server.url, account.email, OLD, path="/profile")
    expect(old_page.get_by_role("heading", name="Become a participant - Have an impact, get paid.")).to_be_visible()

    # Sign-in -> 'Forgot password?' -> the site decider -> the participant's forgot page.
    page.goto(f"{app_server.url}/sign-in")
    open_email_form(page)
    page.get_by_role("link", name="Forgot password?").click()
    expect(page).to_have_url(re.compile(r"/site-decider/?$"))
    expect(page.get_by_text("Signing in as a participant?")).to_be_visible()
    expect(page.get_by_text("Signing in as a customer?")).to_be_visible()
    customer = page.get_by_role("link", name="Recover customer password")
    assert customer.get_attribute("href") == f"{settings.customer_site_url.rstrip('/')}/forgot"
    page.get_by_role("link", name="Recover participant password").click()
    expect(page).to_have_url(re.compile(r"/forgot/?$"))

    before = smtp_server.count_to(account.email)
    _request_link(page, app_server.url, account.email)
    mail = smtp_server.wait_for(account.email, subject_contains=RESET_SUBJECT, after=0)
    assert smtp_server.count_to(account.email) == before + 1
    (link,) = [l for l in mail.links() if "/reset?token=" in l]
    assert link.startswith(f"{app_server.url}/reset?token=")

    # The link opens 'Create new password' with the live checklist.
    page.goto(link)
    expect(page.get_by_role("heading", name="Create new password")).to_be_visible()
    new_field = page.get_by_label("New Password", exact=True)
    confirm_field = page.get_by_label("Confirm New Password")
    expect(new_field).to_have_attribute("placeholder", "12+ characters")
    change = page.get_by_role("button", name="Change Password")
    expect(change).to_be_disabled()
    for key in ("length", "lowercase", "uppercase", "digit", "special", "common"):
        _expect_status(page, key, "unmet")

    new_field.fill("abc")
    _expect_status(page, "lowercase", "met")
    _expect_status(page, "uppercase", "unmet")
    _expect_status(page, "length", "unmet")
    new_field.fill("Password2024!")  # meets the classes, but a common password
    _expect_status(page, "length", "met")
    _expect_status(page, "special", "met")
    _expect_status(page, "common", "unmet")
    new_field.fill("we walked along the quiet river")  # a passphrase needs no classes
    _expect_status(page, "passphrase", "met")
    _expect_status(page, "uppercase", "waived")

    # The current password is refused as 'duplicated'; the error clears when the field changes.
    new_field.fill(OLD)
    confirm_field.fill(OLD)
    expect(change).to_be_enabled()
    change.click()
    duplicated = page.locator("#reset-password-error")
    expect(duplicated).to_have_text("The new password must be different from your current password")
    new_field.fill(NEW)
    expect(duplicated).to_have_count(0)

    # A mismatch shows "Passwords don't match" and keeps the button disabled.
    confirm_field.fill(NEW + "x")
    confirm_field.blur()
    expect(page.locator("#reset-confirm-password-error")).to_have_text("Passwords don't match")
    expect(change).to_be_disabled()
    confirm_field.fill(NEW)
    expect(page.locator("#reset-confirm-password-error")).to_have_count(0)
    for key in ("length", "lowercase", "uppercase", "digit", "special", "common"):
        _expect_status(page, key, "met")
    expect(change).to_be_enabled()
    change.click()

    # Success: sign-in with a toast, and not signed in.
    expect(page).to_have_url(re.compile(r"/sign-in/?$"))
    expect(page.get_by_text("Your password has been changed. Please sign in with your new password.")).to_be_visible()
    db.expire_all()
    stored = db.get(Account, account.id)
    assert stored.password_changed_at is not None
    sessions = db.exec(select(AuthSession).where(AuthSession.account_id == account.id)).all()
    assert sessions and all(s.revoked_at is not None for s in sessions)

    # The session from before the reset no longer opens a private page.
    old_page.goto(f"{app_server.url}/profile")
    expect(old_page).to_have_url(re.compile(r"/sign-in/?\?to=%2Fprofile"))
    other_device.close()

    # The link a second time: the toast, then home (which sends a visitor to sign-in).
    page.goto(link)
    expect(page.get_by_text(LINK_USED)).to_be_visible()
    expect(page).not_to_have_url(re.compile(r"/reset"))

    # The old password is gone; the new one signs in (in a fresh browser, as after a restart).
    fresh = browser.new_context()
    try:
        again = wait_for_hydration(fresh.new_page())
        again.goto(f"{app_server.url}/sign-in")
        fill_sign_in(again, account.email, OLD)
        expect(again.locator("#sign-in-global-error")).to_have_text("Incorrect email or password.")
        again.fill("#sign-in-password", NEW)
        again.click("#sign-in-submit")
        expect(again.locator("#header-user-name")).to_have_text("Riley Reset")
    finally:
        fresh.close()


@pytest.mark.allow_console_errors(failed_request(429, "/api/account/forgot-password"))  # asking again at once
def test_forgot_page_answers_the_same_for_an_unknown_address(page: Page, app_server, db, smtp_server):
    email = unique_email("nobody")
    _request_link(page, app_server.url, email)
    # 'try again' brings the form back.
    page.locator("#forgot-again").click()
    expect(page.get_by_role("button", name="Send Me Reset Link")).to_be_disabled()
    expect(page.get_by_label("Email Address")).to_be_visible()
    # Asking again at once: the wait is shown under the field (as it would be for a known address).
    page.get_by_label("Email Address").fill(email)
    page.get_by_role("button", name="Send Me Reset Link").click()
    expect(page.locator("#forgot-email-error")).to_have_text(
        re.compile(r"Please wait \d+ seconds before asking for another email\.")
    )
    # Nothing may arrive: a link asked for a known address after both requests arrives first, and the
    # sender delivers the outbox in order, so a message to `email` would have come before it.
    known = make_participant(db).email
    with httpx.Client(base_url=app_server.url, timeout=20) as client:
        asked = client.post(
            "/api/account/forgot-password", json={"email": known}, headers={"X-Forwarded-For": "192.0.2.60"}
        )
    assert asked.status_code == 200, asked.text
    smtp_server.wait_for(known, subject_contains=RESET_SUBJECT)
    assert smtp_server.count_to(email) == 0


def test_forgot_http_answer_and_timing_do_not_tell_whether_an_account_exists(app_server, db):
    known = [make_participant(db).email for _ in range(2)]
    unknown = [unique_email("ghost") for _ in range(2)]
    with httpx.Client(base_url=app_server.url, timeout=20) as client:
        answers: dict[str, list] = {}
        for i, email in enumerate([known[0], unknown[0], known[1], unknown[1]]):
            started = time.monotonic()
            r = client.post(
                "/api/account/forgot-password", json={"email": email}, headers={"X-Forwarded-For": f"192.0.2.{40 + i}"}
            )
            answers.setdefault(email, []).append((r.status_code, r.json(), time.monotonic() - started))
        # Asking again within the minute: the same refusal with the wait, known or not.
        again = {
            email: client.post(
                "/api/account/forgot-password", json={"email": email}, headers={"X-Forwarded-For": "192.0.2.50"}
            )
            for email in (known[0], unknown[0])
        }
    for email, rows in answers.items():
        for status, body, _ in rows:
            assert status == 200 and body == {"sent": True, "email": email, "minutes": 60}
    for r in again.values():
        assert r.status_code == 429
        [error] = r.json()["errors"]
        assert error["field"] == "email"
        assert re.fullmatch(r"Please wait \d+ seconds before asking for another email\.", error["message"])
    known_times = [t for email in known for *_, t in answers[email]]
    unknown_times = [t for email in unknown for *_, t in answers[email]]
    assert min(known_times + unknown_times) >= 0.4
    assert abs(sum(known_times) / 2 - sum(unknown_times) / 2) < 0.25


@pytest.mark.allow_console_errors(failed_request(400, "/api/account/forgot-password"))
def test_forgot_page_shows_server_errors_under_the_field(page: Page, app_server):
    page.goto(f"{app_server.url}/forgot")
    # The browser's own check accepts an address without a dot in the domain; the server does not.
    page.get_by_label("Email Address").fill("someone@localhost")
    page.get_by_role("button", name="Send Me Reset Link").click()
    expect(page.locator("#forgot-email-error")).to_have_text("Please enter a valid email address")


def test_reset_without_a_token_is_not_found(page: Page, app_server):
    page.goto(f"{app_server.url}/reset")
    expect(page).to_have_url(re.compile(r"/404/?$"))
    expect(page.get_by_text("This page could not be found.")).to_be_visible()


@pytest.mark.parametrize("token", ["garbage", "A" * 43])
def test_reset_with_a_dead_token_toasts_and_goes_home(page: Page, app_server, token):
    page.goto(f"{app_server.url}/reset?token={token}")
    expect(page.get_by_text(LINK_USED)).to_be_visible()
    expect(page).not_to_have_url(re.compile(r"/reset"))


def test_http_reset_calls_refuse_dead_links_and_cross_site_posts(app_server):
    with httpx.Client(base_url=app_server.url, timeout=20) as client:
        r = client.get(
            "/api/account/reset-password/check-token",
            params={"token": "A" * 43},
            headers={"X-Forwarded-For": "192.0.2.90"},
        )
        assert r.status_code == 400 and r.json() == {"errors": [{"field": "token", "message": LINK_USED}]}
        r = client.put(
            "/api/account/reset-password",
            json={"token": "A" * 43, "password": NEW, "confirmPassword": NEW},
            headers={"X-Forwarded-For": "192.0.2.91"},
        )
        assert r.status_code == 400 and r.json()["errors"][0]["message"] == LINK_USED
        r = client.put(
            "/api/account/reset-password",
            json={"token": "A" * 43, "password": NEW, "confirmPassword": NEW},
            headers={"Origin": "https://evil.example.com"},
        )
        assert r.status_code == 403
        r = client.post(
            "/api/account/forgot-password",
            content=b"not json",
            headers={"Content-Type": "application/json", "X-Forwarded-For": "192.0.2.92"},
        )
        assert r.status_code == 400 and r.json()["errors"] == [{"field": "email", "message": "Email is required"}]
