"""From nothing to a review read, in Chromium (issue 34, 'What must show'): staff build a survey of all 12 question
types with a branch, an image preference test (its concept images uploaded on the Images tab) and a text preference
test, each with 'New test' and the builder; they preview each (the draft, then the saved test), launch it, invite one
participant from the invite page, who takes it to the end in a browser of their own; the staff review page shows every
answer under its question. Screenshots of each builder at 1280 and 375 px."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from portal.domain.authoring.question_kinds import KINDS
from tests.e2e import building as b
from tests.e2e.test_survey import FIFTEEN_WORDS
from tests.support.images import png

OTHER_WORDS = "Our team reads every review from the panel before we decide what to build in the next quarter together."
YES, NO = "Yes, I choose software", "No, not involved"


@pytest.fixture(autouse=True)
def accept_dialogs(page: Page) -> None:
    page.on("dialog", lambda dialog: dialog.accept())


def option(page: Page, label: str) -> None:
    page.locator("label.survey-option", has_text=label).first.click()


def at(page: Page, progress: str) -> None:
    expect(page.locator("#survey-progress")).to_have_text(progress)


def next_question(page: Page, progress: str) -> None:
    page.click("#survey-continue")
    at(page, progress)


def build_survey(page: Page) -> None:
    """The survey in the builder: the first question's text, all 12 kinds (from the second on page 2), and a
    branch on the single choice: 'Yes' to page 2, 'No' to the end of the survey (page 999)."""
    b.typed(page, "#b-survey-welcomePage-title", "How teams choose software")
    b.typed(page, "#b-survey-thankYouPage-title", "Thanks for your answers")
    b.typed(page, "#survey-questions-0-text", "What is your role?")
    for number, kind in enumerate(KINDS, start=1):
        b.choose(page, "#b-survey-questions-new-type", kind.label)
        page.click("#b-survey-questions-add")
        card = f"#survey-questions-{number}"
        expect(page.locator(f"{card}-type")).to_contain_text(kind.label)
        b.typed(page, f"{card}-text", f"About {kind.label.lower()}")
        if number == 2:  # the questions after the branching one go on page 2 (each new one takes the page before)
            b.typed(page, f"{card}-page", "2")
    expect(page.locator(".builder-question")).to_have_count(13)
    b.typed(page, "#survey-questions-1-options-0-label", YES)
    b.typed(page, "#survey-questions-1-options-1-label", NO)
    page.locator("#survey-questions-1-conditional").click()
    page.select_option("#survey-questions-1-options-0-target", "2")
    page.select_option("#survey-questions-1-options-1-target", "999")
    expect(page.locator("#survey-questions-1-options-0-target")).to_have_value("2")
    expect(page.locator("#survey-questions-1-options-1-target")).to_have_value("999")
    b.no_problems(page)


def take_survey(page: Page) -> None:
    """Every question answered on the 'Yes' route, to the end."""
    page.click("#start-survey")
    at(page, "Question 1/13")
    page.fill("#survey-text", "Head of data")
    next_question(page, "Question 2/13")
    option(page, YES)
    next_question(page, "Question 3/13")  # the branch to page 2
    option(page, "Option 1")
    option(page, "Option 2")
    next_question(page, "Question 4/13")
    option(page, "Option 2")
    next_question(page, "Question 5/13")
    option(page, "Option 1")
    next_question(page, "Question 6/13")
    page.fill("#survey-text", "Weekly")
    next_question(page, "Question 7/13")
    page.fill("#survey-text", FIFTEEN_WORDS)
    next_question(page, "Question 8/13")
    page.fill("#survey-text", OTHER_WORDS)
    next_question(page, "Question 9/13")
    page.fill("#survey-number", "42")
    next_question(page, "Question 10/13")
    page.click("#rank-keep")
    next_question(page, "Question 11/13")
    option(page, "4")
    next_question(page, "Question 12/13")
    expect(page.locator("#question-text")).to_have_text("About text and media")
    next_question(page, "Question 13/13")
    page.click("#cell-0-2")
    page.click("#cell-1-0")
    page.click("#survey-submit")


def test_a_survey_of_all_twelve_types_with_a_branch_from_nothing_to_its_review(
    page: Page, browser: Browser, app_server, db
):
    base = app_server.url
    b.sign_in_staff(page, base, db)
    name = b.unique_name("Flow survey")
    test_id = b.new_test(page, base, name, "Survey · Survey")
    b.open_build_tab(page, name)
    build_survey(page)
    b.builder_shots(page, "flow1-survey")

    # The draft previewed: the branch's 'No' ends the survey at once.
    b.preview_draft(page)
    expect(page.locator("#survey-title")).to_have_text("How teams choose software")
    page.click("#start-survey")
    at(page, "Question 1/13")
    page.fill("#survey-text", "Looking")
    next_question(page, "Question 2/13")
    option(page, NO)
    expect(page.locator("#survey-submit")).to_be_visible()
    page.click("#survey-submit")
    expect(page.locator("#preview-end-title")).to_have_text("End of preview")
    expect(page.locator("#preview-end-thank-you")).to_contain_text("Thanks for your answers")

    page.goto(f"{base}/admin/tests/{test_id}/build")
    expect(page.locator("#builder-draft")).to_be_visible()
    b.save_build(page)
    saved = b.saved_test(db, test_id)
    assert [q["type"] for q in saved.survey["questions"]] == ["short-text", *(k.type for k in KINDS)]
    assert [o.get("conditional") for o in saved.survey["questions"][1]["options"]] == [2, 999]

    # The saved test previewed, then launched.
    b.preview_saved(page, base, test_id, name)
    expect(page.locator("#survey-title")).to_have_text("How teams choose software")
    page.click("#start-survey")
    at(page, "Question 1/13")
    expect(page.locator("#question-text")).to_have_text("What is your role?")
    b.launch(page, base, test_id)

    tag = b.unique_name("Flowsurvey").replace(" ", "")
    person = b.panelist(db, tag)
    b.invite_one(page, base, test_id, tag)
    with b.participant(browser, base, person) as taker:
        taker.goto(f"{base}/test/{test_id}/rate")
        expect(taker.locator("#survey-title")).to_have_text("How teams choose software")
        take_survey(taker)
        expect(taker.locator("#thank-you-title")).to_have_text("Thanks for your answers")
    review = b.the_review(db, test_id, person.id)
    assert len(review.answers) == 12  # every question but the description

    answers = b.open_review(page, base, test_id, person.email)
    for question, answer in (
        ("What is your role?", "Head of data"),
        ("About single choice", YES),
        ("About multiple choice", "Option 1, Option 2"),
        ("About single choice (editable)", "Option 2"),
        ("About multiple choice (editable)", "Option 1"),
        ("About short text", "Weekly"),
        ("About long text", FIFTEEN_WORDS),
        ("About open-ended (editable)", OTHER_WORDS),
        ("About number", "42"),
        ("About ranking", "A, B, C"),
        ("About rating", "4"),
        ("About matrix", "Statement 1: Agree"),
    ):
        b.answer_under(answers, question, answer)
    expect(answers).to_contain_text("Statement 2: Disagree")
    expect(answers).not_to_contain_text("statement-1")


CONCEPTS = {"concept-1": "Know your buyers", "concept-2": "Stop guessing"}
PROMPT = "Which hero speaks to you most?"
TAGLINES = ("Know your buyers.", "Stop guessing. Ask your market.", "Real answers in days.")
WHY_TAGLINE = "What made this tagline stand out for you?"


def take_preference(page: Page, pick: int, answer: str) -> tuple[str, str]:
    """From the welcome to the end: the concept shown at `pick` chosen, `answer` given. Returns the chosen concept's
    key (its text for a text test) and the follow-up question as shown."""
    page.click("#preference-start")
    expect(page.locator("#preference-continue")).to_be_disabled()
    page.locator(f"label[for=concept-{pick}]").click()
    expect(page.locator(f"#concept-{pick}")).to_be_checked()
    chosen = page.locator(f"#concept-{pick}").get_attribute("value") or ""
    page.click("#preference-continue")
    follow_up = page.locator("#follow-up")
    expect(follow_up).not_to_be_empty()
    asked = follow_up.inner_text()
    page.fill("#preference-answer", answer)
    page.click("#preference-next")
    expect(page.locator("#details-submit")).to_have_text("Submit feedback")
    page.click("#details-submit")
    return chosen, asked


def test_an_image_preference_test_with_concepts_uploaded_from_nothing_to_its_review(
    page: Page, browser: Browser, app_server, db
):
    base = app_server.url
    b.sign_in_staff(page, base, db)
    name = b.unique_name("Flow image preference")
    test_id = b.new_test(page, base, name, "Preference · Preference test")
    b.open_build_tab(page, name)
    expect(page.locator("#b-preferenceTest-preferenceType")).to_have_text("Image concepts")
    for index, label in enumerate(CONCEPTS.values()):
        page.click("#b-preferenceTest-images-add")
        b.typed(page, f"#preferenceTest-images-{index}-name", label)
    expect(page.locator("#preferenceTest-images-1-key")).to_have_value("concept-2")
    expect(page.locator("#builder-status")).not_to_have_text("No problems")  # the concepts have no image yet
    b.typed(page, "#b-preferenceTest-customInitialQuestion", PROMPT)

    # The images, uploaded on the Images tab before the first save: they go into the builder's draft.
    expect(page.locator("#test-tab-images")).to_be_visible()
    kept = b.upload_images(page, {"concept-1": png(1200, 800, color=(40, 90, 200)), "concept-2": png(1200, 800)})
    expect(page.locator("#images-draft")).to_contain_text("goes into that draft")
    assert not (b.saved_test(db, test_id).preference_test or {}).get("images")  # nothing saved yet
    b.open_build_tab(page, name)
    expect(page.locator("#preferenceTest-images-0-url")).to_have_value(kept["concept-1"])
    expect(page.locator("#preferenceTest-images-1-url")).to_have_value(kept["concept-2"])
    b.no_problems(page)
    b.builder_shots(page, "flow1-image-preference")

    b.preview_draft(page)
    take_preference(page, 0, FIFTEEN_WORDS)
    expect(page.locator("#preview-end-title")).to_have_text("End of preview")
    page.goto(f"{base}/admin/tests/{test_id}/build")
    expect(page.locator("#builder-draft")).to_be_visible()
    b.save_build(page)
    saved = b.saved_test(db, test_id).preference_test
    assert [(i["key"], i["name"], i["url"]) for i in saved["images"]] == [
        (key, label, kept[key]) for key, label in CONCEPTS.items()
    ]

    b.preview_saved(page, base, test_id, name)
    page.click("#preference-start")
    expect(page.locator("#preference-prompt")).to_have_text(PROMPT)
    expect(page.locator("[data-concept]")).to_have_count(2)
    b.launch(page, base, test_id)

    tag = b.unique_name("Flowimage").replace(" ", "")
    person = b.panelist(db, tag)
    b.invite_one(page, base, test_id, tag)
    with b.participant(browser, base, person) as taker:
        taker.goto(f"{base}/test/{test_id}/rate")
        chosen, asked = take_preference(taker, 1, FIFTEEN_WORDS)
        expect(taker.locator("#thank-you-title")).to_be_visible()
    assert b.the_review(db, test_id, person.id).answers["selectedConcept"] == chosen

    answers = b.open_review(page, base, test_id, person.email)
    b.answer_under(answers, PROMPT, CONCEPTS[chosen])
    b.answer_under(answers, asked, FIFTEEN_WORDS)
    assert asked == "Why did you choose concept B?"


def test_a_text_preference_test_from_nothing_to_its_review(page: Page, browser: Browser, app_server, db):
    base = app_server.url
    b.sign_in_staff(page, base, db)
    name = b.unique_name("Flow text preference")
    test_id = b.new_test(page, base, name, "Preference · Preference test")
    b.open_build_tab(page, name)
    b.choose(page, "#b-preferenceTest-preferenceType", "Text options")
    for key, tagline in zip(("optionOne", "optionTwo", "optionThree"), TAGLINES, strict=True):
        b.typed(page, f"#b-preferenceTest-textOptions-{key}", tagline)
    b.typed(page, "#b-preferenceTest-customFollowUpQuestion", WHY_TAGLINE)
    page.locator("#b-preferenceTest-isLimited").click()  # a short answer is enough
    expect(page.locator("#b-preferenceTest-isLimited")).to_have_attribute("data-state", "unchecked")
    b.no_problems(page)
    b.builder_shots(page, "flow1-text-preference")

    b.preview_draft(page)
    take_preference(page, 2, "Short and clear.")
    expect(page.locator("#preview-end-title")).to_have_text("End of preview")
    page.goto(f"{base}/admin/tests/{test_id}/build")
    b.save_build(page)
    saved = b.saved_test(db, test_id).preference_test
    assert saved["preferenceType"] == "text" and tuple(saved["textOptions"].values()) == TAGLINES

    b.preview_saved(page, base, test_id, name)
    page.click("#preference-start")
    expect(page.locator("#preference-prompt")).to_have_text("Read these options and choose one of them.")
    expect(page.locator(".preference-text-option")).to_have_count(3)
    b.launch(page, base, test_id)

    tag = b.unique_name("Flowtext").replace(" ", "")
    person = b.panelist(db, tag)
    b.invite_one(page, base, test_id, tag)
    with b.participant(browser, base, person) as taker:
        taker.goto(f"{base}/test/{test_id}/rate")
        chosen, asked = take_preference(taker, 1, "Short and clear.")
        expect(taker.locator("#thank-you-title")).to_be_visible()
    assert chosen == TAGLINES[1] and asked == WHY_TAGLINE

    answers = b.open_review(page, base, test_id, person.email)
    b.answer_under(answers, "Read these options and choose one of them.", TAGLINES[1])
    b.answer_under(answers, WHY_TAGLINE, "Short and clear.")
