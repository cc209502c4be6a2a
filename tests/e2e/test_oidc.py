"""LinkedIn and Google sign-in and sign-up in Chromium, through a real OpenID provider on loopback.

Every test goes through the real redirects: the portal's /api/auth/{provider}/start,
the provider's /authorize (which signs in the user the test queued), the portal's
callback (Authlib exchanges the code with PKCE and verifies the ID token against
the provider's JWKS), and the screen the callback leads to.
"""

from __future__ import annotations

import re
import uuid
from urllib.parse import parse_qs, urlsplit

import httpx
from playwright.sync_api import BrowserContext, Page, expect
from sqlmodel import func, select

from portal.models import Account, AuthSession, LoginIdentity, ParticipantProfile
from portal.services.sessions import create_session
from tests.e2e.helpers import enter_two_factor_code
from tests.support import two_factor
from tests.support.factories import make_participant, unique_email
from tests.support.oidc_provider import OidcUser


def _sub() -> str:
    return f"sub-{uuid.uuid4().hex[:12]}"


def _session_cookie(context: BrowserContext) -> dict | None:
    return next((c for c in context.cookies() if c["name"] == "portal_session"), None)


def _attach(db, account: Account, provider: str, subject: str) -> None:
    db.add(LoginIdentity(account_id=account.id, provider=provider, subject=subject, email=account.email))
    db.commit()


def _signed_in_as(context: BrowserContext, app_server, db, account: Account) -> None:
    """A browser already signed in as the account (a real server session and its cookie)."""
    token = create_session(session=db, account_id=account.id)
    db.commit()
    context.add_cookies(
        [{"name": "portal_session", "value": token, "url": app_server.url, "httpOnly": True, "sameSite": "Lax"}]
    )


def _sessions(db) -> int:
    db.expire_all()
    return db.exec(select(func.count()).select_from(AuthSession)).one()


def test_new_linkedin_user_signs_up_and_lands_on_registration(page: Page, app_server, db, oidc_provider):
    subject, email = _sub(), unique_email("linkedin-new")
    oidc_provider.next_login("linkedin", OidcUser(sub=subject, email=email, given_name="Nia", family_name="Newman"))
    page.goto(f"{app_server.url}/sign-up?utm_source=newsletter&utm_campaign=spring&REFERRALCODE=FRIEND-7")
    expect(page.get_by_role("heading", name="Sign up as participant")).to_be_visible()
    page.get_by_role("button", name="Sign Up with LinkedIn").click()

    expect(page).to_have_url(re.compile(r"/sign-up/finish/?$"))
    expect(page.get_by_role("heading", name="Finish your registration")).to_be_visible()
    expect(page.locator("#onboarding-firstName")).to_have_value("Nia")
    expect(page.locator("#onboarding-email")).to_have_value(email)
    # Until registration is complete the logo on this route is not a link.
    expect(page.locator("#logo")).to_be_visible()
    expect(page.locator("#logo-link")).to_have_count(0)
    cookie = _session_cookie(page.context)
    assert cookie and cookie["httpOnly"] and cookie["sameSite"] == "Lax"
    assert page.evaluate("localStorage.getItem('lastLoginMethod')") == "linkedin"

    # The provider saw PKCE S256 and a nonce; the account is keyed on (provider, subject).
    request = oidc_provider.tenants["linkedin"].authorize_requests[-1]
    assert request["code_challenge_method"] == "S256" and request["nonce"] and request["state"]
    db.expire_all()
    identity = db.exec(
        select(LoginIdentity).where(LoginIdentity.provider == "linkedin", LoginIdentity.subject == subject)
    ).one()
    account = db.get(Account, identity.account_id)
    assert account.email == email and not account.is_registration_complete
    assert account.signup_tracking == {"utm_source": "newsletter", "utm_campaign": "spring", "REFERRALCODE": "FRIEND-7"}
    profile = db.get(ParticipantProfile, account.id)
    assert (profile.first_name, profile.last_name) == ("Nia", "Newman")
    assert profile.linkedin_profile["sub"] == subject

    # Registration is not finished: private pages stay closed, sign-in sends on to sign-up.
    page.goto(f"{app_server.url}/sign-in")
    expect(page).to_have_url(re.compile(r"/sign-up/?$"))
    expect(page.get_by_role("heading", name="Finish your registration")).to_be_visible()


def test_returning_linkedin_user_signs_in_and_last_used_badge(page: Page, app_server, db, oidc_provider):
    account = make_participant(db, first_name="Rae", last_name="Returning")
    subject = _sub()
    _attach(db, account, "linkedin", subject)
    oidc_provider.next_login("linkedin", OidcUser(sub=subject, email="another-address@example.com"))

    page.goto(f"{app_server.url}/sign-in?to=%2Fprofile")
    expect(page.get_by_role("button", name="Sign In with Google")).to_be_visible()
    page.get_by_role("button", name="Continue with LinkedIn").click()
    expect(page).to_have_url(re.compile(r"/profile/?$"))
    expect(page.locator("#header-user-name")).to_have_text("Rae Returning")

    page.click("#account-menu")
    page.click("#desktop-sign-out")
    expect(page).to_have_url(re.compile(r"/sign-in"))
    expect(page.locator("#continue-with-linkedin")).to_contain_text("Last used")
    expect(page.locator("#sign-in-with-google")).not_to_contain_text("Last used")


def test_linkedin_email_of_older_account_reaches_existing_account_and_connects(
    page: Page, app_server, db, oidc_provider
):
    account = make_participant(db, first_name="Olga", last_name="Older")
    subject = _sub()
    user = OidcUser(sub=subject, email=account.email.upper())  # e-mails compare case-insensitively
    oidc_provider.next_login("linkedin", user)
    before = _sessions(db)

    page.goto(f"{app_server.url}/sign-in")
    page.get_by_role("button", name="Continue with LinkedIn").click()
    expect(page).to_have_url(re.compile(r"/existing-account"))
    expect(page.get_by_role("heading", name="We found your existing account")).to_be_visible()
    expect(page.get_by_text("LinkedIn will be connected to the account matching the LinkedIn email")).to_be_visible()
    assert _session_cookie(page.context) is None and _sessions(db) == before  # an e-mail match opens nothing

    oidc_provider.next_login("linkedin", user)
    page.get_by_role("button", name="Connect LinkedIn").click()
    expect(page).to_have_url(re.compile(r"/$"))
    expect(page.locator("#header-user-name")).to_have_text("Olga Older")
    db.expire_all()
    identity = db.exec(select(LoginIdentity).where(LoginIdentity.subject == subject)).one()
    assert identity.account_id == account.id and identity.provider == "linkedin"


def test_second_account_with_same_linkedin_subject_gets_linkedin_exists(page: Page, app_server, db, oidc_provider):
    first = make_participant(db, first_name="Fay", last_name="First")
    subject = _sub()
    _attach(db, first, "linkedin", subject)
    second = make_participant(db, first_name="Sid", last_name="Second")
    _signed_in_as(page.context, app_server, db, second)

    page.goto(f"{app_server.url}/linkedin-connect?returnUrl=%2Fprofile")
    expect(page.get_by_role("heading", name="Connect your LinkedIn to continue")).to_be_visible()
    oidc_provider.next_login("linkedin", OidcUser(sub=subject, email=first.email))
    page.get_by_role("button", name="Connect LinkedIn").click()

    expect(page).to_have_url(re.compile(r"/existing-account/?\?linkedin_exists=true"))
    expect(page.get_by_role("heading", name="LinkedIn account already exists")).to_be_visible()
    expect(page.get_by_role("button", name="Continue with LinkedIn")).to_be_visible()
    db.expire_all()
    holders = db.exec(select(LoginIdentity.account_id).where(LoginIdentity.subject == subject)).all()
    assert holders == [first.id]
    # Still signed in as the second account.
    page.goto(f"{app_server.url}/profile")
    expect(page.locator("#header-user-name")).to_have_text("Sid Second")


def test_linkedin_connect_from_sign_in_and_skip_for_now(page: Page, app_server, db, oidc_provider):
    account = make_participant(db, first_name="Gus", last_name="Google")
    google_subject = _sub()
    _attach(db, account, "google", google_subject)
    oidc_provider.next_login("google", OidcUser(sub=google_subject, email=account.email))

    page.goto(f"{app_server.url}/sign-in?to=%2Fprofile")
    page.get_by_role("button", name="Sign In with Google").click()
    expect(page).to_have_url(re.compile(r"/linkedin-connect/?\?from_sign_in=true&returnUrl=%2Fprofile"))
    expect(page.get_by_role("heading", name="Connect your LinkedIn to continue")).to_be_visible()
    page.get_by_role("button", name="Skip for now").click()
    expect(page).to_have_url(re.compile(r"/profile/?$"))
    assert page.evaluate("localStorage.getItem('lastLoginMethod')") == "google"

    # Connecting from the same screen attaches LinkedIn and goes on to returnUrl.
    subject = _sub()
    page.goto(f"{app_server.url}/linkedin-connect?from_sign_in=true&returnUrl=%2Fprofile")
    oidc_provider.next_login("linkedin", OidcUser(sub=subject, email="gus.at.linkedin@example.com"))
    page.get_by_role("button", name="Connect LinkedIn").click()
    expect(page).to_have_url(re.compile(r"/profile/?$"))
    db.expire_all()
    assert db.exec(select(LoginIdentity.account_id).where(LoginIdentity.subject == subject)).one() == account.id
    assert oidc_provider.tenants["linkedin"].authorize_requests[-1]["state"]


def test_unknown_linkedin_shows_no_account_found(page: Page, app_server, oidc_provider):
    oidc_provider.next_login("linkedin", OidcUser(sub=_sub(), email=unique_email("nobody")))
    page.goto(f"{app_server.url}/sign-in")
    page.get_by_role("button", name="Continue with LinkedIn").click()
    expect(page).to_have_url(re.compile(r"linkedin_not_exists=true"))
    expect(page.get_by_role("heading", name="No account found")).to_be_visible()
    expect(page.get_by_role("button", name="Sign Up with LinkedIn")).to_be_visible()
    assert _session_cookie(page.context) is None


def test_unknown_google_toasts_account_does_not_exist_then_parameter_removed(page: Page, app_server, oidc_provider):
    oidc_provider.next_login("google", OidcUser(sub=_sub(), email=unique_email("nobody")))
    page.goto(f"{app_server.url}/sign-in")
    page.get_by_role("button", name="Sign In with Google").click()
    expect(page.get_by_text("Account does not exist")).to_be_visible()
    expect(page).to_have_url(re.compile(r"/sign-in/?$"))
    assert _session_cookie(page.context) is None


def test_forged_or_foreign_state_is_refused(page: Page, app_server, db, oidc_provider):
    """A callback URL produced by another browser's flow (login CSRF) opens nothing here."""
    victim_account = make_participant(db)
    subject = _sub()
    _attach(db, victim_account, "linkedin", subject)
    oidc_provider.next_login("linkedin", OidcUser(sub=subject, email=victim_account.email))
    with httpx.Client(timeout=20) as attacker:
        start = attacker.get(f"{app_server.url}/api/auth/linkedin/start", params={"isSignIn": "true"})
        assert start.status_code == 302
        authorize = attacker.get(start.headers["location"])
        callback_url = authorize.headers["location"]
    assert "code=" in callback_url and "state=" in callback_url
    before = _sessions(db)

    page.goto(callback_url)
    expect(page).to_have_url(re.compile(r"/sign-in/?\?authError=state"))
    expect(page.locator("#auth-error")).to_have_text(
        "Your sign-in request has expired or was started in another browser. Nothing was changed. Please try again."
    )
    assert _session_cookie(page.context) is None and _sessions(db) == before

    # A state that was never issued is refused the same way.
    page.goto(f"{app_server.url}/api/auth/linkedin/callback?code=made-up&state=never-issued")
    expect(page).to_have_url(re.compile(r"/sign-in/?\?authError=state"))
    expect(page.locator("#auth-error")).to_be_visible()
    assert _session_cookie(page.context) is None and _sessions(db) == before


def test_cancelled_and_bad_id_tokens_open_no_session(page: Page, app_server, db, oidc_provider):
    account = make_participant(db)
    subject = _sub()
    _attach(db, account, "linkedin", subject)
    before = _sessions(db)

    oidc_provider.next_login("linkedin", OidcUser(sub=subject, email=account.email), deny=True)
    page.goto(f"{app_server.url}/sign-in")
    page.get_by_role("button", name="Continue with LinkedIn").click()
    expect(page.locator("#auth-error")).to_have_text("Sign-in was cancelled. Please try again.")

    for tamper in ("nonce", "signature", "audience", "expired"):
        oidc_provider.next_login("linkedin", OidcUser(sub=subject, email=account.email), tamper=tamper)
        page.goto(f"{app_server.url}/sign-in")
        page.get_by_role("button", name="Continue with LinkedIn").click()
        expect(page.locator("#auth-error")).to_have_text("We couldn't sign you in with LinkedIn. Please try again.")
        assert _session_cookie(page.context) is None, tamper
    assert _sessions(db) == before


def test_verify_account_email_mismatch_then_send_verification_email(
    page: Page, app_server, db, oidc_provider, smtp_server
):
    account = make_participant(db, email_verified=False, first_name="Mia", last_name="Mismatch")
    _signed_in_as(page.context, app_server, db, account)
    oidc_provider.next_login("linkedin", OidcUser(sub=_sub(), email=unique_email("elsewhere")))

    page.goto(f"{app_server.url}/existing-account")
    page.get_by_role("button", name="Connect LinkedIn").click()
    expect(page).to_have_url(re.compile(r"/verify-account/?\?reason=email_mismatch"))
    expect(page.get_by_role("heading", name="We couldn't verify your account")).to_be_visible()
    expect(page.locator("#verify-reason")).to_contain_text("different from the one you registered with")
    button = page.locator("#verify-send")
    expect(button).to_have_text("Send verification email")
    button.click()
    expect(button).to_have_text("Email sent!")
    expect(page.get_by_text("Verification email sent! Please check your inbox.")).to_be_visible()
    smtp_server.wait_for(account.email, subject_contains="Verify")
    db.expire_all()
    assert db.exec(select(LoginIdentity).where(LoginIdentity.account_id == account.id)).first() is None


def test_verify_account_no_account_message(page: Page, app_server, oidc_provider):
    oidc_provider.next_login("linkedin", OidcUser(sub=_sub(), email=unique_email("stranger")))
    page.goto(f"{app_server.url}/existing-account")
    page.get_by_role("button", name="Connect LinkedIn").click()
    expect(page).to_have_url(re.compile(r"/verify-account/?\?reason=no_account"))
    expect(page.locator("#verify-reason")).to_contain_text(
        "couldn't find an account with the email address of your LinkedIn account"
    )
    expect(page.get_by_role("button", name="Log in")).to_be_visible()


def test_existing_account_variants(page: Page, app_server):
    page.goto(f"{app_server.url}/existing-account?linkedin_error=true")
    expect(page.get_by_role("heading", name="We couldn't connect your LinkedIn")).to_be_visible()
    page.get_by_role("button", name="Try again").click()
    expect(page).to_have_url(re.compile(r"/sign-in"))


def test_sign_up_captcha_token_travels_with_the_start(page: Page, app_server, oidc_provider):
    """Captcha is off in this app: the start still works and the state carries the tracking data."""
    oidc_provider.next_login("linkedin", OidcUser(sub=_sub(), email=unique_email("capt")))
    page.goto(f"{app_server.url}/sign-up?li_fat_id=abc123")
    with page.expect_request(re.compile(r"/api/auth/linkedin/start")) as info:
        page.get_by_role("button", name="Sign Up with LinkedIn").click()
    query = parse_qs(urlsplit(info.value.url).query)
    assert query["signUp"] == ["true"] and query["li_fat_id"] == ["abc123"]
    expect(page).to_have_url(re.compile(r"/sign-up/finish"))


def test_a_linkedin_return_asks_for_the_two_factor_code_first(page: Page, app_server, db, oidc_provider):
    """Two-factor sign-in on (issue 40): LinkedIn's return opens no session; the code page does, then the page the
    sign-in was for."""
    account = make_participant(db, first_name="Tess", last_name="Twofactor")
    subject = _sub()
    _attach(db, account, "linkedin", subject)
    two_factor.enable(db, account.id)
    oidc_provider.next_login("linkedin", OidcUser(sub=subject, email=account.email))
    before = _sessions(db)

    page.goto(f"{app_server.url}/sign-in?to=%2Fprofile")
    page.get_by_role("button", name="Continue with LinkedIn").click()
    expect(page).to_have_url(re.compile(r"/two-factor\?to=%2Fprofile"))
    assert _session_cookie(page.context) is None
    assert _sessions(db) == before
    enter_two_factor_code(page, two_factor.next_code(account.id))
    expect(page).to_have_url(re.compile(r"/profile/?$"))
    expect(page.locator("#header-user-name")).to_have_text("Tess Twofactor")
    assert _sessions(db) == before + 1
