"""A fresh clone's `make run` shows the whole way in: 'Sign Up with LinkedIn' and 'Sign In with Google'
work against the local sign-in stand-in, whose page says it is not LinkedIn or Google. A new person
signs up with LinkedIn, finishes the three onboarding steps and lands on the home page; the demo
participant signs in with Google."""

from __future__ import annotations

import re
import uuid

from playwright.sync_api import Page, expect
from sqlmodel import select

from portal.models import Account, OutboxEmail
from tests.e2e.helpers import DEMO_EMAIL, DEMO_NAME
from tests.e2e.test_survey import shot


def test_a_new_person_signs_up_with_linkedin_on_the_stand_in_and_reaches_home(page: Page, app_server, db):
    email = f"ada.{uuid.uuid4().hex[:8]}@example.org"
    work = f"ada.{uuid.uuid4().hex[:8]}@northwind.example"
    page.goto(f"{app_server.url}/sign-up")
    page.get_by_role("button", name="Sign Up with LinkedIn").click()

    # The stand-in's own page: plainly not LinkedIn.
    expect(page).to_have_url(re.compile(r"/local-oidc/linkedin/authorize\?"))
    expect(page.locator("#local-oidc-notice")).to_contain_text("This is not LinkedIn.")
    expect(page.get_by_role("heading", level=1)).to_have_text("Sign in with LinkedIn (local stand-in)")
    shot(page, "local-oidc-1280")
    page.set_viewport_size({"width": 375, "height": 800})
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    shot(page, "local-oidc-375")
    page.set_viewport_size({"width": 1280, "height": 900})
    page.get_by_label("First name").fill("Ada")
    page.get_by_label("Last name").fill("Lovelace")
    page.get_by_label("E-mail").fill("not an address")
    page.click("#local-oidc-continue")
    expect(page.locator("#email-error")).to_have_text("Please enter a valid email address")
    page.get_by_label("E-mail").fill(email)
    page.click("#local-oidc-continue")

    # Back in the portal: the three onboarding steps, prefilled from the stand-in.
    expect(page).to_have_url(re.compile(r"/sign-up/finish/?$"))
    expect(page.get_by_role("heading", name="Review your information")).to_be_visible()
    expect(page.get_by_label("First name *")).to_have_value("Ada")
    expect(page.get_by_label("Personal email *")).to_have_value(email)
    page.get_by_label("Full-time job *").fill("Head of Research")
    page.get_by_role("button", name="Looks good").click()
    expect(page.get_by_role("heading", name="Additional details")).to_be_visible()
    page.get_by_label("Work email *").fill(work)
    page.get_by_label("Country of employer headquarters *").select_option("GB")
    expect(page.locator("#onboarding-workEmail-error")).to_have_count(0)
    page.get_by_role("button", name="Continue").click()
    expect(page.get_by_role("heading", name="Validate email")).to_be_visible()
    expect(page.locator("#onboarding-sent-to")).to_have_text(work)

    # No SMTP on a default run: the link waits in the outbox (python -m portal.cli outbox).
    db.expire_all()
    mail = db.exec(select(OutboxEmail).where(OutboxEmail.to_address == work)).one()
    page.goto(mail.link)
    expect(page.get_by_role("heading", name="Thanks for signing up!")).to_be_visible()
    page.goto(f"{app_server.url}/")
    expect(page).to_have_url(re.compile(rf"{re.escape(app_server.url)}/?$"))
    expect(page.locator("#header-user-name")).to_have_text("Ada Lovelace")
    db.expire_all()
    account = db.exec(select(Account).where(Account.email == email)).one()
    assert account.is_registration_complete and account.work_email_verified_at is not None


def test_the_demo_participant_connects_google_and_linkedin_on_the_stand_in_then_signs_in_with_google(
    page: Page, app_server
):
    page.goto(f"{app_server.url}/sign-in")
    page.get_by_role("button", name="Sign In with Google").click()
    expect(page.locator("#local-oidc-notice")).to_contain_text("This is not Google.")
    demo = page.get_by_role("button", name=re.compile(re.escape(DEMO_EMAIL)))
    demo.click()
    # The demo account has a password and no Google yet: the portal offers to connect it.
    expect(page).to_have_url(re.compile(r"/existing-account"))
    expect(page.get_by_role("heading", name="We found your existing account")).to_be_visible()
    page.wait_for_selector("#portal-ready", state="attached")
    page.get_by_role("button", name="Connect Google").click()
    demo.click()
    expect(page).to_have_url(re.compile(rf"{re.escape(app_server.url)}/?$"))
    expect(page.locator("#header-user-name")).to_have_text(DEMO_NAME)
    # Signed out, 'Sign In with Google' signs in; the portal asks to connect LinkedIn, also on the stand-in.
    page.click("#account-menu")
    page.click("#desktop-sign-out")
    expect(page).to_have_url(re.compile(r"/sign-in"))
    page.goto(f"{app_server.url}/sign-in")  # waits until the page is live (a click before that is lost)
    page.get_by_role("button", name="Sign In with Google").click()
    demo.click()
    expect(page.get_by_role("heading", name="Connect your LinkedIn to continue")).to_be_visible()
    page.wait_for_selector("#portal-ready", state="attached")
    page.get_by_role("button", name="Connect LinkedIn").click()
    expect(page.locator("#local-oidc-notice")).to_contain_text("This is not LinkedIn.")
    demo.click()
    expect(page).to_have_url(re.compile(rf"{re.escape(app_server.url)}/?$"))
    expect(page.locator("#header-user-name")).to_have_text(DEMO_NAME)


def test_cancel_on_the_stand_in_returns_to_the_portal_signed_out(page: Page, app_server):
    page.goto(f"{app_server.url}/sign-in")
    page.get_by_role("button", name="Sign In with Google").click()
    page.click("#local-oidc-cancel")
    expect(page).to_have_url(re.compile(r"/sign-in"))
    expect(page.get_by_role("button", name="Sign In with Google")).to_be_visible()
