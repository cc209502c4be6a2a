"""What a person does on the sign-in screen, in one place for every browser test."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from tests.support import two_factor

DEMO_EMAIL = "participant@example.com"
DEMO_PASSWORD = "Demo-Participant-2026!"
DEMO_NAME = "Dana Reviewer"


def open_email_form(page: Page) -> None:
    """The e-mail form is collapsed while LinkedIn or Google sign-in is configured: open it."""
    toggle = page.locator("#toggle-email-form")
    toggle.wait_for()
    for _ in range(4):  # a click before the page has hydrated may be undone by its load event
        if page.locator("#sign-in-email").is_visible():
            return
        if toggle.get_attribute("aria-expanded") != "true":
            toggle.click()
        try:
            page.wait_for_selector("#sign-in-email", timeout=3000)
            return
        except PlaywrightTimeoutError:
            continue
    page.wait_for_selector("#sign-in-email")


def fill_sign_in(page: Page, email: str, password: str) -> None:
    open_email_form(page)
    page.fill("#sign-in-email", email)
    page.fill("#sign-in-password", password)
    page.click("#sign-in-submit")


def sign_in(page: Page, base_url: str, email: str, password: str, path: str = "/") -> None:
    """Sign in with the password (and, for an account with two-factor sign-in on, the code from its app)."""
    page.goto(f"{base_url}/sign-in")
    fill_sign_in(page, email, password)
    expect(page).not_to_have_url(re.compile(r"/sign-in"))
    if "/two-factor" in page.url:
        enter_two_factor_code(page, two_factor.next_code(email))
    expect(page.locator("#header-user-name")).to_be_visible()
    if path != "/":
        page.goto(f"{base_url}{path}")


def home_page_answered(page: Page) -> None:
    """Two round trips the home page's server acknowledges: a search in the invites table (Enter sends it
    at once), answered with rows loaded for it (the toolbar's data-search). The server runs a tab's events
    in order and the page applies their updates in order. After a reload the page's load handlers run in
    its first event; after a navigation inside the app, the navigation's event queues them behind what the
    tab had sent by then (the first search, perhaps), so the second search comes after them all. Whatever
    the page's load sent (the demo opt-in modal, when it opens) is on the page by then: a check that
    something is NOT shown is meaningful after this, with no fixed wait."""
    box = page.locator("#invites-search")
    for search in ("answered-after-load", "answered-after-all"):
        box.fill(search)
        box.press("Enter")
        expect(page.locator("#invites-toolbar")).to_have_attribute("data-search", search)


def animations_finished(page: Page, selector: str) -> None:
    """The element's animations, and those of what it sits in and what it holds, have finished (a
    dialog's fade-in and its overlay's): what a person sees of it has stopped moving."""
    page.wait_for_function(
        """(selector) => {
            const el = document.querySelector(selector);
            if (!el) return false;
            return document.getAnimations().filter((a) => a.effect && a.effect.target
                && (a.effect.target.contains(el) || el.contains(a.effect.target)))
                .every((a) => a.playState === "finished" || a.playState === "idle");
        }""",
        arg=selector,
    )


def enter_two_factor_code(page: Page, code: str) -> None:
    """The code step of a sign-in: the code typed, the page goes on."""
    expect(page.get_by_role("heading", name="Enter your sign-in code")).to_be_visible()
    page.get_by_label("Code", exact=True).fill(code)
    page.get_by_role("button", name="Sign in", exact=True).click()
    expect(page).not_to_have_url(re.compile(r"/two-factor"))
