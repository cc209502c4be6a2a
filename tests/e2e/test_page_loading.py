"""What a browser fetches to show a page (issue 18, item 5): no redirect, every hashed script and
stylesheet cached for a year, the rest revalidated, and no lucide map of every icon on the pages
whose icon follows the state."""

from __future__ import annotations

import re

from playwright.sync_api import Page, Response, expect

from tests.e2e.helpers import open_email_form
from tests.support.people import person

IMMUTABLE = "public, max-age=31536000, immutable"


def _record(page: Page) -> list[Response]:
    responses: list[Response] = []
    page.on("response", lambda response: responses.append(response))
    return responses


def _own(responses: list[Response], base: str) -> list[Response]:
    return [r for r in responses if r.url.startswith(base) and "/_event" not in r.url]


def test_sign_in_loads_without_redirects_with_cached_bundles_and_no_icon_map(page: Page, app_server):
    responses = _record(page)
    page.goto(f"{app_server.url}/sign-in")
    expect(page.locator("#toggle-email-form svg")).to_have_class(re.compile("lucide-chevron-down"))
    own = _own(responses, app_server.url)
    assert [r.url for r in own if 300 <= r.status < 400] == []
    assert own[0].url == f"{app_server.url}/sign-in" and own[0].status == 200
    hashed = [r for r in own if "/assets/" in r.url]
    assert hashed and all(r.headers.get("cache-control") == IMMUTABLE for r in hashed)
    assert not [r.url for r in hashed if "/DynamicIcon-" in r.url]
    others = [r for r in own if "/assets/" not in r.url and "/api/" not in r.url and r.status == 200]
    assert others and all(r.headers.get("cache-control") == "no-cache" for r in others)
    # The toggle's chevron still follows the form.
    open_email_form(page)
    expect(page.locator("#toggle-email-form svg")).to_have_class(re.compile("lucide-chevron-up"))


def test_home_signed_in_loads_without_redirects_and_with_cached_bundles(page: Page, app_server, db):
    who = person(db)
    name, value = who.cookie.split("=", 1)
    page.context.add_cookies(
        [{"name": name, "value": value, "url": app_server.url, "httpOnly": True, "sameSite": "Lax"}]
    )
    responses = _record(page)
    page.goto(f"{app_server.url}/")
    expect(page.locator("#header-user-name")).to_be_visible()
    own = _own(responses, app_server.url)
    assert [r.url for r in own if 300 <= r.status < 400] == []
    hashed = [r for r in own if "/assets/" in r.url]
    assert hashed and all(r.headers.get("cache-control") == IMMUTABLE for r in hashed)
