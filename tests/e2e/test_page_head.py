"""What every page's head gives browsers and search engines: a favicon that loads and a description."""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import Page, expect

from portal.pages.descriptions import DESCRIPTIONS
from tests.support.browser_console import failed_request

PUBLIC_PAGES = ["/sign-in", "/sign-up", "/site-decider", "/forgot", "/verify-account"]


@pytest.mark.parametrize("path", PUBLIC_PAGES)
def test_each_public_page_has_its_own_meta_description(page: Page, app_server, path: str):
    page.goto(f"{app_server.url}{path}")
    description = page.locator('meta[name="description"]')
    expect(description).to_have_count(1)
    expect(description).to_have_attribute("content", DESCRIPTIONS[path])
    # Crawlers that do not run scripts read the same sentence in the served HTML.
    assert DESCRIPTIONS[path].replace("'", "&#x27;") in httpx.get(f"{app_server.url}{path}", follow_redirects=True).text


@pytest.mark.allow_console_errors(failed_request(404, "/no-such-page"))  # the page's own status
def test_the_not_found_page_has_a_meta_description(page: Page, app_server):
    page.goto(f"{app_server.url}/no-such-page")
    expect(page.locator('meta[name="description"]')).to_have_attribute("content", DESCRIPTIONS["404"])


@pytest.mark.parametrize("path", ["/admin/tests", "/admin/participants"])
def test_a_staff_page_says_no_more_than_the_not_found_page(app_server, path: str):
    """Anyone but staff gets the not-found page at a staff address; its served HTML (the same for
    everyone) carries the not-found description, not what the staff page is for."""
    html = httpx.get(f"{app_server.url}{path}").text
    assert DESCRIPTIONS["404"] in html
    assert "Staff:" not in html


def test_the_favicon_is_linked_and_served_so_no_page_asks_for_a_missing_one(page: Page, app_server):
    failed: list[str] = []
    page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    page.goto(f"{app_server.url}/sign-in")
    icons = page.locator('link[rel="icon"]')
    expect(icons).to_have_count(2)
    assert sorted(icons.evaluate_all("(links) => links.map((l) => l.getAttribute('href'))")) == [
        "/favicon.ico",
        "/favicon.svg",
    ]
    ico = httpx.get(f"{app_server.url}/favicon.ico")
    assert ico.status_code == 200 and ico.content[:4] == b"\x00\x00\x01\x00"  # an ICO file
    svg = httpx.get(f"{app_server.url}/favicon.svg")
    assert svg.status_code == 200 and svg.headers["content-type"].startswith("image/svg+xml") and b"<svg" in svg.content
    page.goto(f"{app_server.url}/sign-up")
    assert failed == []
