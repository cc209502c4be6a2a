"""Sign-in, guards, sign-out and the session cookie, as a person sees them in Chromium."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import Page, expect
from sqlmodel import select

from portal.models import AuthSession
from portal.services.tokens import hash_token
from tests.e2e.conftest import wait_for_hydration
from tests.e2e.helpers import DEMO_EMAIL, DEMO_NAME, DEMO_PASSWORD, fill_sign_in, open_email_form, sign_in
from tests.support.browser_console import failed_request
from tests.support.factories import make_participant


def test_sign_in_page_title(page: Page, app_server):
    page.goto(f"{app_server.url}/sign-in")
    expect(page.locator("#sign-in-title")).to_have_text("Log in as participant")
    page.goto(f"{app_server.url}/sign-in?to=%2Ftest%2F3%2Frate")
    expect(page.locator("#sign-in-title")).to_have_text("Log in as participant to participate")


def test_demo_participant_signs_in_and_sees_name(page: Page, app_server):
    sign_in(page, app_server.url, DEMO_EMAIL, DEMO_PASSWORD)
    expect(page.locator("#header-user-name")).to_have_text(DEMO_NAME)
    expect(page.get_by_role("link", name="TESTS", exact=True)).to_be_visible()
    expect(page.get_by_role("link", name="MY PROFILE", exact=True)).to_be_visible()
    expect(page.get_by_role("link", name="HELP CENTER", exact=True)).to_be_visible()
    page.click("#account-menu")
    expect(page.locator("#desktop-menu-email")).to_have_text(DEMO_EMAIL)


@pytest.mark.allow_console_errors(failed_request(400, "/api/account/sign-in"))
def test_wrong_password_shows_error_and_stays(page: Page, app_server):
    page.goto(f"{app_server.url}/sign-in")
    fill_sign_in(page, DEMO_EMAIL, "not-the-password")
    expect(page.locator("#sign-in-global-error")).to_have_text("Incorrect email or password.")
    expect(page).to_have_url(re.compile(r"/sign-in"))
    assert not [c for c in page.context.cookies() if c["name"] == "portal_session"]


@pytest.mark.allow_console_errors(failed_request(400, "/api/account/sign-in"))
def test_unknown_email_answers_like_wrong_password(page: Page, app_server):
    page.goto(f"{app_server.url}/sign-in")
    fill_sign_in(page, "nobody-here@example.com", "whatever-password")
    expect(page.locator("#sign-in-global-error")).to_have_text("Incorrect email or password.")


@pytest.mark.allow_console_errors(failed_request(400, "/api/account/sign-in"))
def test_empty_fields_get_required_messages(page: Page, app_server):
    page.goto(f"{app_server.url}/sign-in")
    open_email_form(page)
    page.click("#sign-in-submit")
    expect(page.locator("#sign-in-email-error")).to_have_text("Email is required")
    expect(page.locator("#sign-in-password-error")).to_have_text("Password is required")


def test_private_route_goes_to_sign_in_and_returns(page: Page, app_server):
    page.goto(f"{app_server.url}/profile?tab=details")
    expect(page).to_have_url(re.compile(r"/sign-in/?\?"))
    query = parse_qs(urlsplit(page.url).query)
    assert query["to"] == ["/profile"]
    assert query["tab"] == ["details"]  # the existing query string is kept
    fill_sign_in(page, DEMO_EMAIL, DEMO_PASSWORD)
    expect(page).to_have_url(re.compile(r"/profile/?$"))
    expect(page.get_by_role("heading", name="Become a participant - Have an impact, get paid.")).to_be_visible()


def test_sign_out_revokes_the_server_session(page: Page, app_server, db, browser):
    account = make_participant(db, first_name="Sam", last_name="Signout")
    sign_in(page, app_server.url, account.email, "Correct-Horse-42!")
    token = next(c["value"] for c in page.context.cookies() if c["name"] == "portal_session")
    page.click("#account-menu")
    page.click("#desktop-sign-out")
    expect(page).to_have_url(re.compile(r"/sign-in"))
    db.expire_all()
    row = db.exec(select(AuthSession).where(AuthSession.token_hash == hash_token(token))).one()
    assert row.revoked_at is not None
    # The old cookie, replayed in a fresh browser, opens nothing.
    other = browser.new_context()
    try:
        other.add_cookies([{"name": "portal_session", "value": token, "url": app_server.url}])
        replay = wait_for_hydration(other.new_page())
        replay.goto(f"{app_server.url}/profile")
        expect(replay).to_have_url(re.compile(r"/sign-in"))
    finally:
        other.close()


def test_session_revoked_elsewhere_sends_to_sign_in(page: Page, app_server, db):
    account = make_participant(db)
    sign_in(page, app_server.url, account.email, "Correct-Horse-42!")
    for row in db.exec(select(AuthSession).where(AuthSession.account_id == account.id)).all():
        from portal.models._base import utcnow

        row.revoked_at = utcnow()
        db.add(row)
    db.commit()
    page.get_by_role("link", name="MY PROFILE", exact=True).click()
    expect(page).to_have_url(re.compile(r"/sign-in\?.*to=%2Fprofile"))


def test_cookie_is_httponly_and_no_credential_in_page_storage(page: Page, app_server):
    sign_in(page, app_server.url, DEMO_EMAIL, DEMO_PASSWORD)
    cookie = next(c for c in page.context.cookies() if c["name"] == "portal_session")
    assert cookie["httpOnly"] is True
    assert cookie["sameSite"] == "Lax"
    assert page.evaluate("document.cookie").find(cookie["value"]) == -1
    storage = page.evaluate("JSON.stringify([Object.entries(localStorage), Object.entries(sessionStorage)])")
    assert cookie["value"] not in storage
    assert "password" not in storage.lower()


def test_unfinished_registration_goes_to_sign_up(page: Page, app_server, db):
    account = make_participant(db, registration_complete=False)
    page.goto(f"{app_server.url}/sign-in")
    fill_sign_in(page, account.email, "Correct-Horse-42!")
    expect(page).to_have_url(re.compile(r"/sign-up"))
    expect(page.get_by_role("heading", name="Finish your registration")).to_be_visible()
    # A private route does not open for an unfinished user: it goes to sign-in, which sends an
    # unfinished user on to sign-up (the URL may pass /sign-in too fast to be seen).
    page.goto(f"{app_server.url}/profile")
    expect(page).to_have_url(re.compile(r"/sign-up"))
    expect(page.get_by_role("heading", name="Finish your registration")).to_be_visible()
    expect(page.get_by_text("Become a participant - Have an impact, get paid.")).to_have_count(0)


@pytest.mark.allow_console_errors(failed_request(404, "/no/such/page"))
def test_unknown_path_shows_404(page: Page, app_server):
    page.goto(f"{app_server.url}/no/such/page")
    expect(page.locator("#not-found-text")).to_have_text("This page could not be found.")
    page.get_by_role("link", name="Back to home").click()
    expect(page).to_have_url(re.compile(r"/sign-in"))


def test_visitor_sees_sign_up_link_unless_respondent(page: Page, app_server):
    page.goto(f"{app_server.url}/sign-in")
    expect(page.locator("#header-sign-up")).to_be_visible()
    page.goto(f"{app_server.url}/sign-in?respondent_profile_id=abc")
    expect(page.locator("#sign-in-title")).to_be_visible()
    expect(page.locator("#header-sign-up")).to_have_count(0)


def test_mobile_menu_at_375px(browser, app_server):
    ctx = browser.new_context(viewport={"width": 375, "height": 800})
    try:
        page = wait_for_hydration(ctx.new_page())
        page.goto(f"{app_server.url}/sign-in")
        fill_sign_in(page, DEMO_EMAIL, DEMO_PASSWORD)
        expect(page.locator("#mobile-menu")).to_be_visible()
        expect(page.locator("#header-user-name")).to_be_hidden()
        page.click("#mobile-menu")
        expect(page.get_by_role("menuitem", name="MY PROFILE")).to_be_visible()
        page.click("#mobile-sign-out")
        expect(page).to_have_url(re.compile(r"/sign-in"))
    finally:
        ctx.close()


def test_signing_out_sends_every_other_open_tab_away_at_once(page: Page, app_server, db):
    """Issue 40: the other tabs of the browser leave their private page when the person signs out in one tab,
    without waiting for their next click."""
    account = make_participant(db, first_name="Tab", last_name="Twins")
    sign_in(page, app_server.url, account.email, "Correct-Horse-42!")
    other = wait_for_hydration(page.context.new_page())
    other.goto(f"{app_server.url}/notifications")
    expect(other.get_by_role("heading", name="Notifications", level=1)).to_be_visible()
    page.click("#account-menu")
    page.click("#desktop-sign-out")
    expect(page).to_have_url(re.compile(r"/sign-in"))
    expect(other).to_have_url(re.compile(r"/sign-in/?\?to=%2Fnotifications"))  # nothing was clicked there
    other.close()


def test_a_page_loaded_again_for_the_new_person_says_so(page: Page, app_server, db):
    """The word a tab reused by another person shows after it is loaded again (states/tab_owner.py adds the
    parameter; tests/security/test_shared_tab.py sends the reused tab's event)."""
    account = make_participant(db, first_name="Nora", last_name="Newcomer")
    sign_in(page, app_server.url, account.email, "Correct-Horse-42!")
    page.goto(f"{app_server.url}/profile?reloaded=1")
    expect(page.get_by_text("This page was reloaded for the person now signed in.")).to_be_visible()
    expect(page).to_have_url(re.compile(r"/profile$"))  # the parameter is removed
    expect(page.get_by_text("Sorry, your profile was removed")).to_have_count(0)
