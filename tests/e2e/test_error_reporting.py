"""Errors of the real app reach Sentry (a stand-in on loopback, tests/support/sentry_server.py), scrubbed:
a server exception in an API route, and a page that crashes while rendering in the browser."""

from __future__ import annotations

import re
import secrets
import sqlite3
from urllib.parse import urlsplit

import httpx
import pytest
from playwright.sync_api import BrowserContext, Route, expect

from portal.components import page_failure
from portal.domain.table import RENDER_FAILURE
from portal.http.client import SESSION_COOKIE
from tests.support.people import demo_test, invite, person
from tests.support.sentry_server import SentryServer, event_text, exception_types

EMAIL = "crash.victim@example.com"
CRASH = "render crash test"
# Texts as they stand in the compiled chunks: one of the sign-in page, one inside the invites table.
SIGN_IN_TEXT = "`Review B2B messaging, have an impact and get paid.`"
INVITES_TEXT = "`Search invites`"


def test_a_server_exception_reaches_sentry_with_its_type_and_no_e_mail_or_token(
    app_server, sentry_server: SentryServer
):
    """The database refuses to write (another connection holds SQLite's write lock past the busy
    timeout): signing in fails with OperationalError, whose text carries the SQL parameters."""
    with app_server.db() as db:
        who = person(db)
    password = "Not-the-password-1!"
    database = sqlite3.connect(urlsplit(app_server.database_url).path, isolation_level=None, timeout=30)
    try:
        database.execute("BEGIN IMMEDIATE")  # readers go on (WAL); every writer waits, then fails
        answer = httpx.post(
            f"{app_server.url}/api/account/sign-in",
            json={"email": EMAIL, "password": password},
            headers={"Cookie": who.cookie, "Origin": app_server.url},
            timeout=60,
        )
    finally:
        database.execute("ROLLBACK")
        database.close()
    assert answer.status_code == 500
    event = sentry_server.wait_for_event(
        lambda e: "OperationalError" in exception_types(e) and "sign-in failed" in event_text(e)
    )
    text = event_text(event)
    token = who.cookie.removeprefix(f"{SESSION_COOKIE}=")
    assert EMAIL not in text and token not in text and password not in text
    assert "database is locked" in text
    assert event["environment"] == "e2e" and event["level"] == "error"


def crash_a_page(context: BrowserContext, chunk: str, text: str, token: str) -> None:
    """Serve a page's compiled chunk (`/assets/<chunk>-<hash>.js`) with `text` replaced by a throw: the
    component holding it fails while rendering, as a bug would make it (nothing of this runs in production)."""

    def broken(route: Route) -> None:
        response = route.fetch()
        code = response.text()
        assert text in code, f"the chunk no longer holds the text {text} this test breaks"
        throw = f"(()=>{{throw new TypeError(`{CRASH} for {EMAIL} with session {token}`)}})()"
        route.fulfill(response=response, body=code.replace(text, throw, 1))

    context.route(re.compile(rf"/assets/{re.escape(chunk)}-[\w-]+\.js$"), broken)


@pytest.mark.allow_console_errors(CRASH)
def test_a_page_that_crashes_shows_the_fallback_and_reaches_sentry_scrubbed(
    app_server, sentry_server: SentryServer, context: BrowserContext
):
    token = secrets.token_urlsafe(32)
    crash_a_page(context, "_sign-in_._index", SIGN_IN_TEXT, token)
    page = context.new_page()
    page.goto(f"{app_server.url}/sign-in")
    expect(page.locator("#page-failure")).to_contain_text(page_failure.TITLE)
    expect(page.locator("#page-failure")).to_contain_text(page_failure.TEXT)

    event = sentry_server.wait_for_event(lambda e: "TypeError" in exception_types(e) and CRASH in event_text(e))
    text = event_text(event)
    assert EMAIL not in text and token not in text
    assert event["tags"] == {"source": "browser", "boundary": "page"}
    value = event["exception"]["values"][0]["value"]
    assert value == f"{CRASH} for [email] with session [Filtered]"
    # Which component crashed: in the production build, a minified name in the sign-in page's chunk.
    assert "/assets/_sign-in_._index-" in event["contexts"]["browser_error"]["component_stack"].splitlines()[1]
    assert f"the browser failed to render page: TypeError: {CRASH}" in app_server.log_path.read_text()


@pytest.mark.allow_console_errors(CRASH)
def test_a_table_that_crashes_shows_its_fallback_and_reaches_sentry_scrubbed(
    app_server, sentry_server: SentryServer, context: BrowserContext
):
    with app_server.db() as db:
        who = person(db)
        invite(db, who, demo_test(db, "01-survey.json"))
    token = who.cookie.removeprefix(f"{SESSION_COOKIE}=")
    context.add_cookies(
        [{"name": SESSION_COOKIE, "value": token, "url": app_server.url, "httpOnly": True, "sameSite": "Lax"}]
    )
    crash_a_page(context, "_index", INVITES_TEXT, token)
    page = context.new_page()
    page.goto(f"{app_server.url}/")
    expect(page.get_by_role("alert").filter(has_text="Unable to display table")).to_have_text(RENDER_FAILURE)
    expect(page.locator("#page-failure")).to_have_count(0)  # the rest of the page is still shown

    event = sentry_server.wait_for_event(lambda e: (e.get("tags") or {}).get("boundary") == "table InvitesTableState")
    text = event_text(event)
    assert exception_types(event) == ["TypeError"] and CRASH in text
    assert EMAIL not in text and token not in text
    assert (
        f"the browser failed to render table InvitesTableState: TypeError: {CRASH}" in app_server.log_path.read_text()
    )
