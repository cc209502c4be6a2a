"""The onboarding at /sign-up/finish in Chromium: a new LinkedIn account walks the three steps.

The account is made through the real LinkedIn flow (the OpenID provider on loopback); the
verification e-mail is read from the SMTP server on loopback and its link followed.
"""

from __future__ import annotations

import os
import re
import uuid
from pathlib import Path

from playwright.sync_api import BrowserContext, Page, expect
from sqlmodel import select

from portal.models import Account, LoginIdentity, ParticipantProfile
from portal.models._base import utcnow
from portal.services.sessions import create_session
from tests.support.factories import make_participant, unique_email
from tests.support.oidc_provider import OidcUser
from tests.support.throttle import rewind

FREE_MAIL_MESSAGE = (
    "Please use your work email. Addresses from free email providers such as gmail.com are not accepted."
)
SHOTS = Path(os.environ.get("SCREENSHOT_DIR", "/tmp/onboarding-screenshots"))


def _shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def _signed_in_as(context: BrowserContext, app_server, db, account: Account) -> None:
    token = create_session(session=db, account_id=account.id)
    db.commit()
    context.add_cookies(
        [{"name": "portal_session", "value": token, "url": app_server.url, "httpOnly": True, "sameSite": "Lax"}]
    )


def _signup_events(page: Page) -> int:
    return page.evaluate("(window.dataLayer || []).filter((e) => e && e.event === 'sign_up').length")


def _tab(page: Page, index: int):
    return page.locator(f"#onboarding-step-{index}")


def test_new_linkedin_account_walks_the_three_steps_to_thank_you(
    page: Page, app_server, db, oidc_provider, smtp_server
):
    taken = make_participant(db)  # an existing account whose work e-mail is taken
    subject, email = f"sub-{uuid.uuid4().hex[:12]}", unique_email("onboard")
    work = f"nia-{uuid.uuid4().hex[:8]}@northwind.example"
    oidc_provider.next_login("linkedin", OidcUser(sub=subject, email=email, given_name="Nia", family_name="Newman"))
    page.goto(f"{app_server.url}/sign-up")
    page.get_by_role("button", name="Sign Up with LinkedIn").click()
    expect(page).to_have_url(re.compile(r"/sign-up/finish/?$"))

    # Step 0: 'Review your information', prefilled from LinkedIn.
    expect(page.get_by_role("heading", name="Finish your registration")).to_be_visible()
    expect(page.get_by_role("heading", name="Review your information")).to_be_visible()
    expect(_tab(page, 0)).to_have_attribute("aria-current", "step")
    expect(_tab(page, 0)).to_contain_text("Review info")
    expect(_tab(page, 1)).to_contain_text("Additional details")
    expect(_tab(page, 2)).to_contain_text("Validate email")
    expect(_tab(page, 2)).to_be_disabled()  # no registration yet, nothing to validate
    expect(page.get_by_label("First name *")).to_have_value("Nia")
    expect(page.get_by_label("Last name *")).to_have_value("Newman")
    expect(page.get_by_label("Personal email *")).to_have_value(email)
    _shot(page, "step0-1280")

    # Emptying a required field: its message, the form's message, and later steps disabled.
    page.get_by_label("First name *").fill("")
    page.get_by_label("Full-time job *").focus()
    expect(page.locator("#onboarding-firstName-error")).to_have_text("First name is required")
    expect(page.locator("#onboarding-form-message")).to_have_text("All fields are required to continue.")
    expect(_tab(page, 1)).to_be_disabled()
    page.get_by_role("button", name="Looks good").click()
    expect(page.locator("#onboarding-jobTitle-error")).to_have_text("Experience is required")
    expect(_tab(page, 0)).to_have_attribute("aria-current", "step")

    page.get_by_label("First name *").fill("Nia")
    page.get_by_label("Full-time job *").fill("Head of Finance")
    page.get_by_label("Company (optional)").fill("Northwind")
    page.get_by_role("button", name="Looks good").click()

    # Step 1: 'Additional details'.
    expect(page.get_by_role("heading", name="Additional details")).to_be_visible()
    expect(_tab(page, 1)).to_have_attribute("aria-current", "step")
    work_field = page.get_by_label("Work email *")
    # Continue with nothing: the spec's required messages.
    page.get_by_role("button", name="Continue").click()
    expect(page.locator("#onboarding-workEmail-error")).to_have_text("Work email is required")
    expect(page.locator("#onboarding-employerHqCountry-error")).to_have_text(
        "Country of employer headquarters is required"
    )
    expect(page.locator("#onboarding-form-message")).to_have_text("Please complete all required(*) fields to continue.")
    expect(_tab(page, 2)).to_be_disabled()

    # A work e-mail used by another account, then a free-mail one: the server's answers.
    work_field.fill(taken.work_email.upper())
    expect(page.locator("#onboarding-workEmail-error")).to_have_text("Email already exists")
    work_field.fill("nia.newman@gmail.com")
    expect(page.locator("#onboarding-workEmail-error")).to_have_text(FREE_MAIL_MESSAGE)
    page.set_viewport_size({"width": 375, "height": 800})
    _shot(page, "step1-errors-375")
    page.set_viewport_size({"width": 1280, "height": 900})

    # Going back keeps what was typed; forward again.
    page.get_by_role("button", name="Go back").click()
    expect(page.get_by_role("heading", name="Review your information")).to_be_visible()
    expect(page.get_by_label("Full-time job *")).to_have_value("Head of Finance")
    page.get_by_role("button", name="Looks good").click()
    expect(page.get_by_role("heading", name="Additional details")).to_be_visible()

    work_field = page.get_by_label("Work email *")
    work_field.fill(work)
    page.get_by_label("Country of employer headquarters *").select_option("DE")
    expect(page.locator("#onboarding-workEmail-error")).to_have_count(0)
    # Record every label the button shows while the profile is sent.
    page.evaluate("""() => { window.__labels = [];
        const note = () => { const b = document.querySelector('#onboarding-next');
        if (b) window.__labels.push(b.textContent); };
        new MutationObserver(note).observe(document.body, {subtree: true, childList: true, characterData: true}); }""")
    page.get_by_role("button", name="Continue").click()

    # Step 2: 'Validate email'; the registration is complete and the link is on its way.
    expect(page.get_by_role("heading", name="Validate email")).to_be_visible()
    expect(page.locator("#onboarding-sent-to")).to_have_text(work)
    assert any("Submitting..." in label for label in page.evaluate("window.__labels"))
    expect(_tab(page, 2)).to_have_attribute("aria-current", "step")
    expect(page.locator("#logo-link")).to_be_visible()  # the logo is a link once registration is complete
    _shot(page, "step2-1280")
    page.set_viewport_size({"width": 375, "height": 800})
    _shot(page, "step2-375")
    page.set_viewport_size({"width": 1280, "height": 900})
    db.expire_all()
    account = db.get(Account, db.exec(select(LoginIdentity.account_id).where(LoginIdentity.subject == subject)).one())
    profile = db.get(ParticipantProfile, account.id)
    assert account.is_registration_complete and account.work_email == work and account.work_email_verified_at is None
    assert (profile.first_name, profile.job_title, profile.company_name, profile.employer_hq_country) == (
        "Nia",
        "Head of Finance",
        "Northwind",
        "DE",
    )

    # The signup analytics event: once per participant per browser session.
    page.wait_for_function("(window.dataLayer || []).some((e) => e && e.event === 'sign_up')")
    assert _signup_events(page) == 1
    page.reload()
    expect(page.get_by_role("heading", name="Validate email")).to_be_visible()  # a finished registration opens here
    assert _signup_events(page) == 0
    assert page.evaluate(f"sessionStorage.getItem('portalSignupTracked:{account.id}')") == "1"

    # Back to an earlier step by its tab, then into the last one by its tab: the profile is sent again.
    _tab(page, 0).click()
    expect(page.get_by_role("heading", name="Review your information")).to_be_visible()
    page.get_by_label("Company (optional)").fill("Northwind Ltd")
    _tab(page, 2).click()
    expect(page.get_by_role("heading", name="Validate email")).to_be_visible()
    db.expire_all()
    assert db.get(ParticipantProfile, account.id).company_name == "Northwind Ltd"

    # The link went out moments ago: Resend says how long to wait; a minute later it sends.
    page.get_by_role("button", name="Resend email", exact=True).click()
    expect(page.get_by_text(re.compile(r"Please wait \d+ seconds before asking for another email\."))).to_be_visible()
    rewind(db, seconds=61)
    page.get_by_role("button", name="Resend email", exact=True).click()
    expect(page.get_by_text("Verification email has been sent successfully!")).to_be_visible()

    mail = smtp_server.wait_for(work, subject_contains="Verify your work email")
    link = next(url for url in mail.links() if "verify-email" in url)
    page.goto(link)
    expect(page).to_have_url(re.compile(r"/thank-you/?$"))
    expect(page.get_by_role("heading", name="Thanks for signing up!")).to_be_visible()
    expect(page.get_by_text(f"Your email {work} has been verified")).to_be_visible()


def test_signed_out_visitor_goes_to_sign_up_keeping_the_query(page: Page, app_server):
    page.goto(f"{app_server.url}/sign-up/finish?utm_source=newsletter&REFERRALCODE=FRIEND7")
    expect(page).to_have_url(re.compile(r"/sign-up/?\?utm_source=newsletter&REFERRALCODE=FRIEND7$"))
    expect(page.get_by_role("heading", name="Sign up as participant")).to_be_visible()


def test_older_account_prefill_and_personal_email_duplicate(page: Page, context: BrowserContext, app_server, db):
    other = make_participant(db)
    account = make_participant(db, registration_complete=False, email_verified=False, verified=False, first_name="Ola")
    _signed_in_as(context, app_server, db, account)
    page.set_viewport_size({"width": 375, "height": 800})
    page.goto(f"{app_server.url}/sign-up/finish")
    expect(page.get_by_role("heading", name="Review your information")).to_be_visible()
    _shot(page, "step0-375")

    # The personal e-mail's duplicate check, 800 ms after typing stops; the own address is fine.
    email_field = page.get_by_label("Personal email *")
    email_field.fill(other.email)
    expect(page.locator("#onboarding-email-error")).to_have_text("Email already exists")
    email_field.fill(account.email)
    expect(page.locator("#onboarding-email-error")).to_have_count(0)

    page.get_by_label("Full-time job *").fill("Analyst")
    page.get_by_role("button", name="Looks good").click()
    # An empty work e-mail is prefilled once with the unverified account e-mail.
    expect(page.get_by_label("Work email *")).to_have_value(account.email)
    # A tab ahead validates first: the last step is not open before registration is complete.
    expect(page.locator("#onboarding-step-2")).to_be_disabled()
    page.locator("#onboarding-step-0").click()
    expect(page.get_by_role("heading", name="Review your information")).to_be_visible()
    page.locator("#onboarding-step-1").click()
    expect(page.get_by_role("heading", name="Additional details")).to_be_visible()


def test_verified_work_email_is_locked(page: Page, context: BrowserContext, app_server, db):
    account = make_participant(db, registration_complete=False, verified=False)
    account.work_email = f"locked-{uuid.uuid4().hex[:8]}@acme.example"
    account.work_email_verified_at = utcnow()
    db.add(account)
    db.commit()
    _signed_in_as(context, app_server, db, account)
    page.goto(f"{app_server.url}/sign-up/finish")
    page.get_by_label("Full-time job *").fill("Analyst")
    page.get_by_role("button", name="Looks good").click()
    expect(page.get_by_label("Work email *")).to_be_disabled()
    expect(page.get_by_label("Work email *")).to_have_value(account.work_email)
    expect(page.locator("#onboarding-workEmail-helper")).to_have_text("Your work email is verified.")


def test_step_one_keeps_what_was_typed_across_a_reload(page: Page, context: BrowserContext, app_server, db):
    """Issue 40: typed in 'Review your information' and not sent yet, the values are there again after a reload."""
    account = make_participant(db, registration_complete=False, email_verified=False, verified=False, first_name="Ola")
    _signed_in_as(context, app_server, db, account)
    with page.expect_websocket() as opened:
        page.goto(f"{app_server.url}/sign-up/finish")
    expect(page.get_by_role("heading", name="Review your information")).to_be_visible()
    socket = opened.value
    for label, value in (("First name *", "Priya"), ("Full-time job *", "Head of Operations")):
        # The page sends what was typed once typing pauses (the frame leaves before the reload does).
        with socket.expect_event(
            "framesent", predicate=lambda payload, v=value: "keep_field" in str(payload) and v in str(payload)
        ):
            page.get_by_label(label).fill(value)
    page.reload()
    expect(page.get_by_role("heading", name="Review your information")).to_be_visible()
    expect(page.get_by_label("First name *")).to_have_value("Priya")
    expect(page.get_by_label("Full-time job *")).to_have_value("Head of Operations")
