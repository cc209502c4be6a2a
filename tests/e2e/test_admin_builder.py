"""The test builder in Chromium (issue 34, item 2): staff build a survey from one question to all 12 question
types with a branch to the end, in forms, with the live messages beside the fields; the draft survives a
reload; they save it, then preview it; options are moved with the keyboard. Screenshots of the builder of a
survey, a preference and a landing-page test at 1280 and 375 px."""

from __future__ import annotations

import uuid

from playwright.sync_api import Page, expect

from portal.domain.authoring.question_kinds import KINDS
from portal.domain.staff import roles
from portal.models import Test
from tests.e2e.helpers import sign_in
from tests.e2e.test_accessibility import assert_accessible
from tests.e2e.test_admin import STAFF_PASSWORD, open_admin, staff
from tests.e2e.test_survey import shot


def a_test(db, **values) -> Test:
    test = Test(name=f"Builder {uuid.uuid4().hex[:8]}", status="draft", **values)
    db.add(test)
    db.commit()
    return test


def a_small_survey(db) -> Test:
    return a_test(
        db, product_type="survey", survey={"questions": [{"key": "role", "type": "short-text", "text": "Your role?"}]}
    )


def typed(page: Page, selector: str, text: str) -> None:
    """Type into a field and leave it (the field sends on blur)."""
    page.fill(selector, text)
    page.locator(selector).press("Tab")


def choose(page: Page, trigger: str, label: str) -> None:
    page.click(trigger)
    page.get_by_role("option", name=label, exact=True).click()


def shots(page: Page, name: str) -> None:
    """The builder at 1280 and 375 px, from the top of the page."""
    for width in (1280, 375):
        page.set_viewport_size({"width": width, "height": 900})
        page.evaluate("window.scrollTo(0, 0)")
        expect(page.locator("#builder-status")).to_be_in_viewport()
        shot(page, f"builder-{name}-{width}")
    page.set_viewport_size({"width": 1280, "height": 900})


def open_builder(page: Page, base: str, test: Test) -> None:
    open_admin(page, base, f"/admin/tests/{test.id}/build")
    expect(page.locator("#test-tab-build")).to_have_attribute("aria-current", "page")
    expect(page.locator("#builder-test-name")).to_have_text(test.name)


def test_staff_build_a_survey_of_all_twelve_types_with_a_branch_save_and_preview_it(page: Page, app_server, db):
    base = app_server.url
    test = a_small_survey(db)
    me = staff(db, roles.TEAM_MANAGER)
    sign_in(page, base, me.email, STAFF_PASSWORD)
    open_builder(page, base, test)
    expect(page.locator("#builder-status")).to_have_text("No problems")
    expect(page.locator("#builder-save")).to_be_disabled()  # nothing changed yet

    typed(page, "#b-survey-welcomePage-title", "How teams buy software")
    expect(page.locator("#builder-draft")).to_be_visible()
    typed(page, "#b-survey-thankYouPage-title", "Thank you!")

    # All 12 kinds, each added from the menu: a new question's text is required until it is typed.
    for number, kind in enumerate(KINDS, start=1):
        choose(page, "#b-survey-questions-new-type", kind.label)
        page.click("#b-survey-questions-add")
        card = f"#survey-questions-{number}"
        expect(page.locator(f"{card}-type")).to_contain_text(kind.label)
        expect(page.locator(f"{card}-text-error")).to_have_text("Is required")
        typed(page, f"{card}-text", f"About {kind.label.lower()}")
        expect(page.locator(f"{card}-text-error")).to_have_count(0)
    expect(page.locator(".builder-question")).to_have_count(13)
    expect(page.locator("#builder-status")).to_have_text("No problems")

    # The single-choice question (number 1): a third option, moved up with the keyboard; a branch to the end.
    page.click("#survey-questions-1-options-add")
    expect(page.locator("#survey-questions-1-options-2-error")).to_contain_text("Is required")
    expect(page.locator("#builder-status")).to_have_text("1 problem")
    typed(page, "#survey-questions-1-options-2-label", "Not involved")
    expect(page.locator("#survey-questions-1-options-2-error")).to_have_count(0)
    page.locator("#survey-questions-1-options-2-up").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#survey-questions-1-options-1-label")).to_have_value("Not involved")
    page.locator("#survey-questions-1-conditional").click()
    page.select_option("#survey-questions-1-options-1-target", "999")
    expect(page.locator("#survey-questions-1-options-1-target")).to_have_value("999")

    # Too few options is said beside the options; the rule for videos beside the video link.
    page.click("#survey-questions-9-options-2-remove")
    page.click("#survey-questions-9-options-1-remove")
    expect(page.locator("#survey-questions-9-options-error")).to_have_text("A rank question needs at least 2 options")
    page.click("#survey-questions-9-options-add")
    typed(page, "#survey-questions-9-options-1-label", "Price")
    expect(page.locator("#survey-questions-9-options-error")).to_have_count(0)
    page.locator("#survey-questions-11 summary").click()
    typed(page, "#survey-questions-11-video", "https://videos.example.com/1")
    expect(page.locator("#survey-questions-11-video-error")).to_contain_text("YouTube, Vimeo, Dailymotion or Loom")
    typed(page, "#survey-questions-11-video", "https://www.youtube.com/embed/aqz-KE-bpKQ")
    expect(page.locator("#survey-questions-11-video-error")).to_have_count(0)

    # The first question moved down with the keyboard, and back.
    page.locator("#survey-questions-0-down").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#survey-questions-1-text")).to_have_value("Your role?")
    page.locator("#survey-questions-1-up").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#survey-questions-0-text")).to_have_value("Your role?")
    expect(page.locator("#builder-status")).to_have_text("No problems")

    # Nothing typed is lost on a reload: the draft is kept on the server.
    page.reload()
    expect(page.locator("#builder-test-name")).to_have_text(test.name)
    expect(page.locator(".builder-question")).to_have_count(13)
    expect(page.locator("#survey-questions-1-options-1-label")).to_have_value("Not involved")
    db.expire_all()
    assert len(db.get(Test, test.id).survey["questions"]) == 1  # not saved yet

    shots(page, "survey")
    assert_accessible(page, "the survey builder")

    page.click("#builder-save")
    expect(page.locator("#builder-saved")).to_be_visible()
    db.expire_all()
    saved = db.get(Test, test.id)
    assert [q["type"] for q in saved.survey["questions"][1:]] == [k.type for k in KINDS]
    assert saved.survey["questions"][1]["options"][1] == {
        "value": "option-3",
        "label": "Not involved",
        "conditional": 999,
    }
    assert saved.survey["welcomePage"]["title"] == "How teams buy software"
    assert saved.draft_document is None

    # The preview of the builder's copy shows the questions built.
    page.click("#builder-preview")
    expect(page.locator("#preview-marker")).to_have_text("Preview of the draft")
    expect(page.locator("#survey-title")).to_have_text("How teams buy software")
    page.click("#start-survey")
    expect(page.locator("#survey-progress")).to_have_text("Question 1/13")
    expect(page.locator("#survey-question")).to_contain_text("Your role?")
    page.fill("#survey-text", "Buyer")
    page.click("#survey-continue")
    expect(page.locator("#survey-progress")).to_have_text("Question 2/13")
    expect(page.locator("#survey-question")).to_contain_text("About single choice")
    expect(page.locator("#survey-question")).to_contain_text("Not involved")


def test_the_preview_of_a_draft_with_problems_says_so(page: Page, app_server, db):
    base = app_server.url
    test = a_small_survey(db)
    me = staff(db, roles.SUPER_ADMIN)
    sign_in(page, base, me.email, STAFF_PASSWORD)
    open_builder(page, base, test)
    page.click("#b-survey-questions-add")
    expect(page.locator("#builder-status")).to_have_text("1 problem")
    page.click("#builder-preview")
    expect(page.locator("#preview-draft-invalid")).to_contain_text("The draft has 1 problem to fix in the builder")
    page.click("#preview-to-builder")
    expect(page.locator("#builder-draft")).to_be_visible()
    page.click("#builder-discard")
    expect(page.locator("#builder-saved")).to_be_visible()
    expect(page.locator(".builder-question")).to_have_count(1)


def test_a_preference_and_a_landing_page_builder_with_the_screener(page: Page, app_server, db):
    base = app_server.url
    preference = a_test(
        db,
        product_type="preference-test",
        preference_test={
            "preferenceType": "image",
            "images": [
                {"key": "concept-a", "name": "Know your buyers", "url": "/demo/concept-a.png"},
                {"key": "concept-b", "name": "Stop guessing", "url": "/demo/concept-b.png"},
            ],
        },
    )
    landing = a_test(
        db,
        product_type="landing-page",
        url="https://acme-analytics.example.com/",
        screenshot_url="/demo/landing.png",
        questions={"first-impression": [{"key": "fi", "type": "long-text", "text": "What is offered?"}]},
    )
    me = staff(db, roles.TEAM_OWNER)
    sign_in(page, base, me.email, STAFF_PASSWORD)

    open_builder(page, base, preference)
    page.click("#b-preferenceTest-images-add")
    expect(page.locator("#preferenceTest-images-2-error")).to_contain_text("Is required")
    typed(page, "#preferenceTest-images-2-name", "Real answers")
    typed(page, "#preferenceTest-images-2-url", "/demo/concept-c.png")
    expect(page.locator("#builder-status")).to_have_text("No problems")
    typed(page, "#b-preferenceTest-followUpQuestion", "Why this one?")
    # A matrix screener with its correct answers.
    page.locator("#b-screener-on").click()
    choose(page, "#b-screenerQuestion-type", "Matrix")
    typed(page, "#b-screenerQuestion-question", "Which tools do you use?")
    for i, text in enumerate(("CRM", "Analytics")):
        typed(page, f"#screenerQuestion-rows-{i}-text", text)
    for i, text in enumerate(("Never", "Weekly")):
        typed(page, f"#screenerQuestion-columns-{i}-text", text)
    expect(page.locator("#b-screenerQuestion-correctMatrix-error")).to_be_visible()
    page.locator("#b-correct-0-1").click()
    page.locator("#b-correct-1-1").click()
    expect(page.locator("#builder-status")).to_have_text("No problems")
    shots(page, "preference")
    assert_accessible(page, "the preference builder with a matrix screener")
    page.click("#builder-save")
    expect(page.locator("#builder-saved")).to_be_visible()
    db.expire_all()
    saved = db.get(Test, preference.id)
    assert [i["key"] for i in saved.preference_test["images"]] == ["concept-a", "concept-b", "concept-3"]
    assert saved.screener_question["correctMatrix"] == [[1], [1]]

    open_builder(page, base, landing)
    expect(page.locator("#builder-areas-link")).to_have_attribute("href", f"/admin/tests/{landing.id}/areas")
    typed(page, "#b-url", "not a url")
    expect(page.locator("#b-url-error")).to_have_text("Must be an http(s) URL")
    typed(page, "#b-url", "https://acme-analytics.example.com/")
    choose(page, "#b-questions-post-test-new-type", "Rating")
    page.click("#b-questions-post-test-add")
    typed(page, "#questions-post-test-0-text", "How clear is the page?")
    expect(page.locator("#builder-status")).to_have_text("No problems")
    shots(page, "landing")


def test_a_video_test_is_built_with_its_recorder_address(page: Page, app_server, db):
    test = a_test(db, product_type="video-test")
    me = staff(db, roles.TEAM_MANAGER)
    sign_in(page, app_server.url, me.email, STAFF_PASSWORD)
    open_builder(page, app_server.url, test)
    expect(page.locator("#builder-video")).to_contain_text("The recording")
    typed(page, "#b-videoTest-recorderUrl", "not an address")
    expect(page.locator("#b-videoTest-recorderUrl-error")).to_be_visible()
    typed(page, "#b-videoTest-recorderUrl", "https://record.example.com/start")
    expect(page.locator("#b-videoTest-recorderUrl-error")).to_have_count(0)
    assert_accessible(page, "the video builder")
    shots(page, "video")
    page.click("#builder-save")
    expect(page.locator("#builder-saved")).to_be_visible()
    db.expire_all()
    assert db.get(Test, test.id).video_recorder_url == "https://record.example.com/start"
