"""axe-core in Chromium: no violation of any impact on the portal's pages, as a visitor, a verified
and an unverified participant see them.

axe runs every rule it has (WCAG 2 A and AA, best practices) on the page as it stands once the
content the test waits for is shown; a violation fails the test with axe's own report.
"""

from __future__ import annotations

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import BrowserContext, Page, expect

from tests.e2e.test_crowd_work_thank_you import crowd_work_test, take_it_to_the_thank_you
from tests.support.browser_console import failed_request
from tests.support.people import Person, demo_test, invite, person

AXE = Axe()
# axe's own list of rules that are not checked ("experimental"): none is left out here.
RUN_ALL = {"resultTypes": ["violations"]}


# Toasts fade in: axe reads a half-faded text as too pale. Checked once every toast on the page is in (mounted, and
# no transition of it still running), as a person reads it.
TOASTS_SETTLED = """() => [...document.querySelectorAll('[data-sonner-toast]')].every((toast) =>
    toast.dataset.mounted === 'true' && document.getAnimations().every((a) => !a.effect || !a.effect.target
        || !toast.contains(a.effect.target) || a.playState !== 'running'))"""


def assert_accessible(page: Page, where: str) -> None:
    page.wait_for_function(TOASTS_SETTLED)
    results = AXE.run(page, options=RUN_ALL)
    assert results.violations_count == 0, f"{where} ({page.url}):\n{results.generate_report()}"


def signed_in(context: BrowserContext, app_server, who: Person) -> None:
    name, value = who.cookie.split("=", 1)
    context.add_cookies([{"name": name, "value": value, "url": app_server.url, "httpOnly": True, "sameSite": "Lax"}])


# --- public pages -----------------------------------------------------------------------------------

PUBLIC_PAGES = [
    ("/sign-in", "#toggle-email-form"),
    ("/sign-up", "h1"),
    ("/site-decider", "h1"),
    ("/forgot", "h1"),
    ("/verify-account", "h1"),
]


@pytest.mark.parametrize(("path", "shown"), PUBLIC_PAGES, ids=[p for p, _ in PUBLIC_PAGES])
def test_public_pages_have_no_violations(page: Page, app_server, path: str, shown: str):
    page.goto(f"{app_server.url}{path}")
    expect(page.locator(shown).first).to_be_visible()
    assert_accessible(page, path)


@pytest.mark.allow_console_errors(failed_request(404, "/no-such-page"))  # the page's own status
def test_the_not_found_page_has_no_violations(page: Page, app_server):
    page.goto(f"{app_server.url}/no-such-page")
    expect(page.locator("#not-found-text")).to_be_visible()
    assert_accessible(page, "the not-found page")


def test_the_sign_in_page_with_the_email_form_open_has_no_violations(page: Page, app_server):
    from tests.e2e.helpers import open_email_form

    page.goto(f"{app_server.url}/sign-in")
    open_email_form(page)
    assert_accessible(page, "/sign-in with the e-mail form")


# --- private pages, verified and unverified -----------------------------------------------------------

# /referral sends a participant it is not for (not verified) to the home page.
PRIVATE_PAGES = [
    ("/", "#header-user-name"),
    ("/profile", "#header-user-name"),
    ("/referral", "#referral-link, #tab-invites"),
    ("/notifications", "#notifications-list"),
    ("/account", "#account-sessions li"),
]
WHO = {
    "verified": {},
    # Not verified by staff yet, the work e-mail not confirmed: the amber banner shows on every page.
    "unverified": {"verified": False, "work_email_verified": False},
}


@pytest.mark.parametrize("kind", list(WHO))
@pytest.mark.parametrize(("path", "shown"), PRIVATE_PAGES, ids=[p for p, _ in PRIVATE_PAGES])
def test_private_pages_have_no_violations(page: Page, app_server, db, kind: str, path: str, shown: str):
    signed_in(page.context, app_server, person(db, **WHO[kind]))
    page.goto(f"{app_server.url}{path}")
    expect(page.locator(shown).first).to_be_visible()
    expect(page.locator(".portal-main")).to_be_visible()
    page.wait_for_load_state("networkidle")
    assert_accessible(page, f"{path} ({kind})")


def test_verify_account_for_a_participant_whose_email_is_not_confirmed_has_no_violations(page: Page, app_server, db):
    signed_in(page.context, app_server, person(db, verified=False, email_verified=False, work_email_verified=False))
    page.goto(f"{app_server.url}/")
    expect(page).to_have_url(f"{app_server.url}/verify-account?from_sign_in=true")
    expect(page.locator("h1")).to_be_visible()
    assert_accessible(page, "/verify-account after sign-in")


@pytest.mark.parametrize("kind", list(WHO))
def test_the_sign_up_thank_you_page_has_no_violations(page: Page, app_server, db, kind: str):
    signed_in(page.context, app_server, person(db, **WHO[kind]))
    page.goto(f"{app_server.url}/thank-you")
    expect(page.locator("#thank-you-title")).to_be_visible()
    assert_accessible(page, "/thank-you")
    page.get_by_role("button", name="Whitelist us in Gmail").click()
    expect(page.get_by_text("Report not spam", exact=False)).to_be_visible()
    assert_accessible(page, "/thank-you with a guide open")


# --- taking a test ---------------------------------------------------------------------------------------


def _open_as_invited_participant(page: Page, app_server, db, file: str):
    """A demo test imported anew, opened by a new participant invited to it."""
    test = demo_test(db, file)
    who = person(db)
    invite(db, who, test)
    signed_in(page.context, app_server, who)
    page.goto(f"{app_server.url}/test/{test.id}/rate")
    return test


def _thank_you_and_reopened(page: Page, app_server, test, ending: str, reopened: str, who: str) -> None:
    """The thank-you (its ending shown), then the test opened again (already taken)."""
    expect(page.locator(ending)).to_be_visible()
    assert_accessible(page, f"the thank-you of {who}")
    page.goto(f"{app_server.url}/test/{test.id}/rate")
    expect(page.locator(reopened)).to_be_visible()
    assert_accessible(page, f"the test opened again by {who}")


def test_a_survey_question_and_the_members_thank_you_have_no_violations(page: Page, app_server, db):
    test = _open_as_invited_participant(page, app_server, db, "09-single-question.json")
    expect(page.locator("#survey-welcome")).to_be_visible()
    assert_accessible(page, "the survey's welcome")
    page.click("#start-survey")
    expect(page.locator("#survey-progress")).to_have_text("Question 1/1")
    assert_accessible(page, "a survey question")
    page.locator("label.survey-option", has_text="A live dashboard").click()
    page.click("#survey-submit")
    _thank_you_and_reopened(page, app_server, test, "#thank-you-home", "#access-text", "a member")


def test_the_screener_has_no_violations(page: Page, app_server, db):
    _open_as_invited_participant(page, app_server, db, "07-screener.json")
    expect(page.locator("#screener-confirm")).to_be_visible()
    assert_accessible(page, "the screener")


def _take_the_public_survey(page: Page, app_server, test) -> None:
    page.goto(f"{app_server.url}/test/{test.id}/rate")
    expect(page.locator("#survey-welcome")).to_be_visible()
    page.click("#start-survey")
    expect(page.locator("#survey-progress")).to_have_text("Question 1/2")
    assert_accessible(page, "a survey question for a public respondent")
    page.locator("label.survey-option", has_text="Python").first.click()
    page.click("#survey-continue")
    expect(page.locator("#survey-progress")).to_have_text("Question 2/2")
    page.fill("#survey-text", "GitHub Actions")
    page.click("#survey-submit")
    expect(page.locator("#personal-info-title")).to_be_visible()
    assert_accessible(page, "the personal info step")


def test_the_public_thank_you_with_the_sign_up_promo_has_no_violations(page: Page, app_server, db):
    test = demo_test(db, "08-public-qualification.json")
    _take_the_public_survey(page, app_server, test)
    page.fill("#detail-firstName", "Robin")
    page.fill("#detail-jobTitle", "Staff engineer")
    page.fill("#detail-email", "robin.dev@example.org")
    page.fill("#detail-linkedin", "linkedin.com/in/robin-dev")
    page.click("#details-submit")
    _thank_you_and_reopened(page, app_server, test, "#thank-you-promo", "#completed-text", "a public respondent")


def test_the_crowd_work_thank_you_has_no_violations(page: Page, app_server, db):
    test = crowd_work_test(db)
    page.goto(f"{app_server.url}/test/{test.id}/rate")
    take_it_to_the_thank_you(page, "A1B2C3")
    assert_accessible(page, "the crowd-work thank-you")
    page.click("#thank-you-close")  # a tab the test opened itself: the browser keeps it open
    expect(page.locator("#thank-you-close-refused")).not_to_have_text("")
    assert_accessible(page, "the crowd-work thank-you after Close this window")
