"""The rating page's first view (portal/http/first_view.py): a participant who may start a survey gets its
welcome in the page's HTML, drawn exactly where the page then draws it, and the page takes over."""

from __future__ import annotations

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from portal.domain.taking import survey_view
from portal.http.client import SESSION_COOKIE
from tests.support.people import demo_test, person

# What must line up between the first view and the page: the card, its title, its button, the header, the footer.
PARTS = {
    "card": (".first-view-card", "#survey-welcome"),
    "title": (".first-view-card h1", "#survey-title"),
    "button": (".first-view-card button", "#start-survey"),
    "header": ("#first-view header", "body > div > div > header.portal-header"),
    "footer": ("#first-view footer", "body > div > div > footer.portal-footer"),
}


def signed_in(context: BrowserContext, app_server, cookie: str) -> None:
    name, _, value = cookie.partition("=")
    assert name == SESSION_COOKIE
    context.add_cookies([{"name": name, "value": value, "url": app_server.url, "httpOnly": True, "sameSite": "Lax"}])


def boxes(page: Page, which: int) -> dict[str, tuple[float, ...]]:
    found = {}
    for part, selectors in PARTS.items():
        box = page.locator(selectors[which]).first.bounding_box()
        assert box is not None, f"{selectors[which]} is not shown"
        found[part] = tuple(round(box[k], 1) for k in ("x", "y", "width", "height"))
    return found


# The HTML alone is looked at with the app's scripts refused: each refusal is logged.
SCRIPTS_REFUSED = pytest.mark.allow_console_errors("Failed to load resource: net::ERR_FAILED")


@SCRIPTS_REFUSED
@pytest.mark.parametrize("width", [375, 1280])
def test_the_welcome_is_in_the_pages_html_where_the_page_draws_it(browser, app_server, db, width: int):
    test = demo_test(db, "01-survey.json")
    who = person(db)
    context = browser.new_context(viewport={"width": width, "height": 900})
    try:
        signed_in(context, app_server, who.cookie)
        before = context.new_page()
        before.route("**/*.js", lambda route: route.abort())  # the HTML alone, as it shows before the app runs
        before.goto(f"{app_server.url}/test/{test.id}/rate")
        first = before.locator("#first-view")
        expect(first).to_be_visible()
        expect(first.locator("h1")).to_have_text("How teams buy analytics software")
        expect(first.locator("li")).to_have_count(len(survey_view.AGREEMENTS))
        expect(first.get_by_role("button", name="Start survey")).to_be_disabled()
        drawn = boxes(before, 0)
        after = context.new_page()
        after.goto(f"{app_server.url}/test/{test.id}/rate")
        expect(after.locator("#survey-welcome")).to_be_visible()
        expect(after.locator("#first-view")).to_be_hidden()  # the page's own welcome took over
        assert boxes(after, 1) == drawn
        after.click("#start-survey")
        expect(after.locator("#survey-progress")).to_have_text("Question 1/13")
    finally:
        context.close()


@SCRIPTS_REFUSED
def test_a_participant_resuming_a_started_test_gets_the_page_alone(browser, app_server, db):
    """A session in progress resumes at its question: there is no welcome to draw."""
    test = demo_test(db, "01-survey.json")
    who = person(db)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        signed_in(context, app_server, who.cookie)
        page = context.new_page()
        page.goto(f"{app_server.url}/test/{test.id}/rate")
        page.click("#start-survey")
        expect(page.locator("#survey-progress")).to_have_text("Question 1/13")
        again = context.new_page()
        again.route("**/*.js", lambda route: route.abort())
        again.goto(f"{app_server.url}/test/{test.id}/rate")
        expect(again.locator("#first-view")).to_have_count(0)
    finally:
        context.close()
