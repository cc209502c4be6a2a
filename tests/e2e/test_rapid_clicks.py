"""Rapid clicks on choices are never lost (issue 40, item 3): ten clicks 100 ms apart on a multiple choice leave the
state they should, on the page, in the stored draft, after a reload, and right after a page load too."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.e2e.helpers import sign_in
from tests.e2e.test_survey import PASSWORD, at_question, continue_to, invited_participant, option, survey_test

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
    for label in CLICKS:
        page.locator("label.survey-option", has_text=label).first.click()
        page.wait_for_timeout(100)  # the pace of the clicks (what is tested), not a wait for an outcome


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
