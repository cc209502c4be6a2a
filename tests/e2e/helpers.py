"""What a person does on the sign-in screen, in one place for every browser test."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

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
    page.goto(f"{base_url}/sign-in")
    fill_sign_in(page, email, password)
    expect(page).not_to_have_url(re.compile(r"/sign-in"))
    expect(page.locator("#header-user-name")).to_be_visible()
    if path != "/":
        page.goto(f"{base_url}{path}")
