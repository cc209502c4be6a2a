"""The pages work under their Content-Security-Policy: no violation, no console error.

`console_guard` (tests/e2e/conftest.py) fails a test on any console error or CSP violation;
these tests visit the public pages and the signed-in pages so that every page kind is covered.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from tests.e2e.conftest import CONSOLE
from tests.e2e.helpers import DEMO_EMAIL, DEMO_NAME, DEMO_PASSWORD, sign_in


def _csp(response) -> str:
    return response.headers.get("content-security-policy", "")


def test_public_pages_run_under_the_policy(page: Page, app_server):
    for path, ready in (("/sign-in", "#sign-in-title"), ("/sign-up", "#portal-ready"), ("/forgot", "#portal-ready")):
        response = page.goto(f"{app_server.url}{path}")
        assert "frame-ancestors 'none'" in _csp(response)
        page.wait_for_selector(ready, state="attached")
    # The inline config script (allowed by its hash) ran, and the websocket is up (state hydrated).
    assert page.evaluate("window.portalConfig && window.portalConfig.captcha.provider") == "none"


def test_signed_in_pages_run_under_the_policy(page: Page, app_server):
    # Sign-in goes through rx.call_script (eval) and a fetch to the API; both are allowed.
    sign_in(page, app_server.url, DEMO_EMAIL, DEMO_PASSWORD)
    expect(page.locator("#header-user-name")).to_have_text(DEMO_NAME)
    response = page.goto(f"{app_server.url}/profile")
    assert "script-src 'self'" in _csp(response)
    expect(page.locator("#header-user-name")).to_have_text(DEMO_NAME)
    page.goto(f"{app_server.url}/")
    expect(page).to_have_url(re.compile(r"/$"))
    expect(page.locator("#header-user-name")).to_have_text(DEMO_NAME)


@pytest.mark.allow_console_errors(
    r"Content-Security-Policy violation: script-src-elem blocked inline\b",
    r"Executing inline script violates the following Content Security Policy directive",
)
def test_an_injected_inline_script_is_refused(page: Page, app_server):
    """The policy is enforced: a script someone manages to inject does not run."""
    page.goto(f"{app_server.url}/sign-in")
    # An inline script runs as it is inserted, or is refused with a violation report: the report reaches
    # the console (the context's watch, registered first, records it before this wait ends; without a
    # report the wait ends at its timeout and the assertions below say what happened).
    refused = "Content-Security-Policy violation: script-src-elem"
    try:
        with page.context.expect_event("console", predicate=lambda message: refused in message.text):
            page.evaluate("""() => {
                const s = document.createElement("script");
                s.textContent = "window.__injected = true;";
                document.head.appendChild(s);
            }""")
    except PlaywrightTimeoutError:
        pass
    assert page.evaluate("window.__injected === undefined")
    assert any("Content-Security-Policy violation: script-src-elem" in p for p in CONSOLE.problems)
