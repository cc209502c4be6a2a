"""Rapid clicks on choices are never lost (issue 40, item 3): ten clicks 100 ms apart on a multiple choice leave the
state they should, on the page, in the stored draft, after a reload, and right after a page load too."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.e2e.helpers import sign_in
from tests.e2e.test_survey import PASSWORD, at_question, continue_to, invited_participant, option, shot, survey_test

LABELS = ("Spreadsheets", "A BI suite", "Product analytics", "Web analytics")
# Ten clicks: Spreadsheets 3 times (on), A BI suite 3 times (on), Product analytics 2 times (off), Web analytics
# twice (off): two chosen, within the question's 1 to 3.
CLICKS = ("Spreadsheets", "A BI suite", "Product analytics", "Web analytics") * 2 + ("Spreadsheets", "A BI suite")
CHOSEN = {"Spreadsheets", "A BI suite"}


def checked(page: Page) -> set[str]:
    return {
        label for label in LABELS if page.locator("label.survey-option", has_text=label).locator("input").is_checked()
    }


def ten_clicks(page: Page) -> None:
    """Ten clicks about 100 ms apart: each press is held 100 ms before it is let go (Playwright's own pacing of
    the input), the next press follows at once."""
    for label in CLICKS:
        page.locator("label.survey-option", has_text=label).first.click(delay=100)


def expect_chosen(page: Page) -> None:
    for label in LABELS:
        box = page.locator("label.survey-option", has_text=label).locator("input")
        if label in CHOSEN:
            expect(box).to_be_checked()
        else:
            expect(box).not_to_be_checked()


def test_ten_quick_clicks_on_a_multiple_choice_leave_the_right_answer(page: Page, app_server, db):
    test = survey_test(db)
    account = invited_participant(db, test)
    sign_in(page, app_server.url, account.email, PASSWORD)
    page.goto(f"{app_server.url}/test/{test.id}/rate")
    page.click("#start-survey")
    at_question(page, "Question 1/13")
    option(page, "I make or approve the decision")
    continue_to(page, "Question 2/13")

    ten_clicks(page)
    expect_chosen(page)
    expect(page.locator("#survey-error")).to_have_count(0)
    page.reload()  # what the server kept
    at_question(page, "Question 2/13")
    expect_chosen(page)

    # Right after a page load: the clicks start as soon as the question shows.
    page.reload()
    at_question(page, "Question 2/13")
    ten_clicks(page)  # each label clicked an even number of times more: back where it was
    ten_clicks(page)
    expect_chosen(page)
    page.reload()
    at_question(page, "Question 2/13")
    expect_chosen(page)
    assert checked(page) == CHOSEN


def test_a_matrix_at_375_px_keeps_its_column_names_over_their_buttons_and_its_statements_in_view(
    page: Page, app_server, db
):
    """Issue 40: scrolled sideways on a phone, each column's name is above its own buttons and each row keeps its
    statement in view."""
    test = survey_test(db)
    account = invited_participant(db, test)
    sign_in(page, app_server.url, account.email, PASSWORD)
    page.set_viewport_size({"width": 375, "height": 800})
    page.goto(f"{app_server.url}/test/{test.id}/rate")
    page.click("#start-survey")
    at_question(page, "Question 1/13")
    option(page, "I recommend tools to the decision maker")
    continue_to(page, "Question 5/13")
    page.click("#rank-keep")
    continue_to(page, "Question 6/13")
    option(page, "4")
    continue_to(page, "Question 7/13")
    box = page.locator("#survey-matrix").locator("xpath=..")
    for scroll in (0, 400):  # at rest, and scrolled as far right as it goes
        box.evaluate("(el, x) => { el.scrollLeft = x; }", scroll)
        page.wait_for_function(
            "(x) => document.getElementById('survey-matrix').parentElement.scrollLeft >= Math.min(x, 1)", arg=scroll
        )
        heads = page.locator("#survey-matrix thead th")
        frame = box.bounding_box()
        for column in range(1, heads.count()):
            head = heads.nth(column).bounding_box()
            button = page.locator(f"#cell-0-{column - 1}").bounding_box()
            assert abs((head["x"] + head["width"] / 2) - (button["x"] + button["width"] / 2)) <= 2, (scroll, column)
        statement = page.locator("#survey-matrix tbody th").first.bounding_box()
        assert frame["x"] - 1 <= statement["x"] and statement["x"] + statement["width"] <= frame["x"] + frame["width"]
        shot(page, f"matrix-375-scrolled-{scroll}")
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
