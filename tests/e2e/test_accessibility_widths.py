"""axe at both widths (issue 40): the profile, the survey (its welcome and a question with a matrix) and the
preference test (choosing, the detailed view, the answer), at 375 and 1280 px: no violation of any impact."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.helpers import animations_finished
from tests.e2e.test_accessibility import assert_accessible, signed_in
from tests.support.people import demo_test, invite, person

WIDTHS = [375, 1280]


def _open(page: Page, app_server, db, file: str, width: int):
    test = demo_test(db, file)
    who = person(db)
    invite(db, who, test)
    signed_in(page.context, app_server, who)
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{app_server.url}/test/{test.id}/rate")
    return test


@pytest.mark.parametrize("width", WIDTHS)
def test_the_profile_has_no_violations(page: Page, app_server, db, width: int):
    signed_in(page.context, app_server, person(db))
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{app_server.url}/profile")
    expect(page.locator("#profile-firstName")).to_be_visible()
    page.wait_for_load_state("networkidle")
    assert_accessible(page, f"/profile at {width} px")


@pytest.mark.parametrize("width", WIDTHS)
def test_the_survey_welcome_and_a_matrix_question_have_no_violations(page: Page, app_server, db, width: int):
    _open(page, app_server, db, "01-survey.json", width)
    expect(page.locator("#survey-welcome")).to_be_visible()
    assert_accessible(page, f"the survey's welcome at {width} px")
    page.click("#start-survey")
    expect(page.locator("#survey-progress")).to_have_text("Question 1/13")
    page.locator("label.survey-option", has_text="I recommend tools to the decision maker").click()
    for progress in ("Question 5/13", "Question 6/13", "Question 7/13"):
        if progress == "Question 6/13":
            page.click("#rank-keep")
        if progress == "Question 7/13":
            page.locator("label.survey-option", has_text="4").first.click()
        page.click("#survey-continue")
        expect(page.locator("#survey-progress")).to_have_text(progress)
    expect(page.locator("#survey-matrix")).to_be_visible()
    animations_finished(page, "#survey-matrix")
    assert_accessible(page, f"a survey matrix question at {width} px")


@pytest.mark.parametrize("width", WIDTHS)
def test_the_preference_test_has_no_violations(page: Page, app_server, db, width: int):
    _open(page, app_server, db, "04-preference-image.json", width)
    page.click("#preference-start")
    expect(page.locator("[data-concept]")).to_have_count(3)
    assert_accessible(page, f"choosing a concept at {width} px")
    page.click("#concept-open-0")
    expect(page.locator("#detail-title")).to_have_text("Concept A")
    animations_finished(page, "#detail-title")
    assert_accessible(page, f"the detailed view at {width} px")
    page.click("#detail-select")
    expect(page.locator("#detail-title")).to_have_count(0)
    page.click("#preference-continue")
    expect(page.locator("#follow-up")).to_be_visible()
    assert_accessible(page, f"the answer at {width} px")
