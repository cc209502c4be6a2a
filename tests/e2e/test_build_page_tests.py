"""Page tests built from nothing in Chromium (issue 34, 'What must show when this is resolved'), as staff and
participants do it, each in their own browser:

1. a landing-page test: 'New test', the page address and the first-impression and after-the-areas questions
   in the builder, the screenshot uploaded on the Images tab (the builder shows it), two highlight areas drawn
   in the area editor with a question each, previewed to its end, launched, one participant invited on the
   invite page, who takes it to the end; the review page shows every answer under its question;
2. a pricing test built the same way, with its home page and its pricing page (addresses and screenshots);
3. versions: on that landing-page test, while a second participant is in the middle of it, staff remove an
   area: the editor says who is taking version 1 and how many reviews it has, and saves version 2 once
   staff confirm; the second participant still answers the removed area and submits on version 1; a third
   participant gets version 2 (one area); the first review still shows the removed area's question.

Screenshots of the landing-page and pricing builders and of the area editor at 1280 and 375 px go to
/work/shots/flow2-*.png (when that directory exists).
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect
from sqlmodel import select

from portal.domain.staff import roles
from portal.models import Invite, Review, ReviewSession, Test, TestVersion
from tests.e2e.building import choose, new_test, open_build_tab, panelist
from tests.e2e.helpers import animations_finished, sign_in
from tests.e2e.taking import invited
from tests.e2e.test_admin import STAFF_PASSWORD, open_admin, row, staff, table_search
from tests.e2e.test_admin_areas import drag, png
from tests.e2e.test_admin_builder import typed
from tests.e2e.test_highlight import OTHER_WORDS
from tests.e2e.test_survey import FIFTEEN_WORDS, PASSWORD

SHOTS = Path("/work/shots")
LANDING_URL = "https://acme-analytics.example.com/"
HOME_URL = "https://acme-analytics.example.com/"
PRICING_URL = "https://acme-analytics.example.com/pricing"
READ_THE_PAGE = "Please read through the full page first."
READ_THE_HOME_PAGE = "Please read through the home page first"

# The landing-page test's questions, and what the participants answer.
FIRST_IMPRESSION = "In one sentence, what does Acme Analytics offer you?"
AREA_ONE = "What does this headline promise you?"
AREA_TWO = "Which plan on this part of the page would you pick?"
AFTER = "How likely are you to sign up?"
AFTER_OPTIONS = ("Very likely", "Not likely")
AREA_TWO_ANSWER = "The team plan for five people."

# The pricing test's.
PRICING_FIRST = "What do you expect Acme Analytics to cost?"
PRICING_AREA = "Is this price fair for what you get?"
PRICING_AFTER = "How clear is the pricing page?"
PRICING_AREA_ANSWER = "Fair for a team, too much for one person."


@pytest.fixture(autouse=True)
def accept_dialogs(page: Page) -> None:
    """Leaving a test while its time runs asks first (the browser's 'leave site?'): accepted."""
    page.on("dialog", lambda dialog: dialog.accept())


def flow_shot(page: Page, name: str) -> None:
    if SHOTS.is_dir():
        page.screenshot(path=str(SHOTS / f"flow2-{name}.png"), full_page=True)


def shots_at_both_widths(page: Page, name: str, top: str) -> None:
    """The page at 1280 and 375 px from its top (`top` in view), then back to 1280 px."""
    for width in (1280, 375):
        page.set_viewport_size({"width": width, "height": 900})
        page.evaluate("window.scrollTo(0, 0)")
        expect(page.locator(top)).to_be_in_viewport()
        flow_shot(page, f"{name}-{width}")
    page.set_viewport_size({"width": 1280, "height": 900})


def browser_of(browser: Browser) -> tuple[BrowserContext, Page]:
    """A browser of one's own (a participant's, or staff's), at desktop width."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(20000)
    page = context.new_page()
    page.on("dialog", lambda dialog: dialog.accept())
    return context, page


# --- staff: New test, the builder, images, areas, launch, invite, the review ----------------------------------


def add_question(page: Page, block: str, kind_label: str, number: int, question: str) -> str:
    """A question of `kind_label` added at the end of a block ('first-impression' or 'post-test'), with its
    text; returns the id prefix of its card."""
    choose(page, f"#b-questions-{block}-new-type", kind_label)
    page.click(f"#b-questions-{block}-add")
    card = f"#questions-{block}-{number}"
    expect(page.locator(f"{card}-text-error")).to_have_text("Is required")
    typed(page, f"{card}-text", question)
    expect(page.locator(f"{card}-text-error")).to_have_count(0)
    return card


def upload_image(page: Page, slot: str, name: str, data: bytes) -> str:
    """An image chosen for a slot of the Images tab; returns the address the portal kept it at."""
    page.set_input_files(
        f"#upload-{slot} input[type=file]", files=[{"name": name, "mimeType": "image/png", "buffer": data}]
    )
    image = page.locator(f"img#image-{slot}")
    expect(image).to_have_attribute("src", re.compile(r"^/media/images/[0-9a-f]{64}\.png$"))
    expect(page.locator(f"#upload-{slot}-error")).to_have_text("")
    return image.get_attribute("src")


def save_builder(page: Page) -> None:
    expect(page.locator("#builder-status")).to_have_text("No problems")
    page.click("#builder-save")
    expect(page.locator("#builder-saved")).to_be_visible()
    expect(page.locator("#builder-draft")).to_have_count(0)


def draw_areas(page: Page, screenshot: str, areas: list[tuple[tuple[float, float], tuple[float, float]]]) -> None:
    """The area editor: the screenshot shown, each area dragged on it."""
    page.click("#test-tab-areas")
    expect(page.locator("#test-tab-areas")).to_have_attribute("aria-current", "page")
    expect(page.locator("#areas-empty")).to_be_visible()
    expect(page.locator("#area-editor-image")).to_have_attribute("src", screenshot)
    page.wait_for_function("() => document.querySelector('#area-editor-image').naturalWidth === 1400")
    box = page.locator("#area-editor-surface").bounding_box()
    for index, (start, end) in enumerate(areas):
        drag(page, box, start, end)
        expect(page.locator(f"#area-box-{index}")).to_be_visible()
        expect(page.locator("#areas-problems")).to_contain_text(f"selectedAreas[{index}].questions")


def ask_in_area(page: Page, index: int, question: str, kind_label: str | None = None) -> None:
    page.click(f"#area-{index}-add-question")
    if kind_label is not None:
        choose(page, f"#area-{index}-question-0-type", kind_label)
    page.locator(f"#area-{index}-question-0-text").fill(question)
    expect(page.locator(f"#area-{index}-question-0-text")).to_have_value(question)


def save_areas(page: Page) -> None:
    expect(page.locator("#areas-ok")).to_have_text("No problems found: ready to save.")
    page.click("#areas-save")
    expect(page.get_by_text("Highlight areas saved.")).to_be_visible()
    expect(page.locator("#areas-ok")).to_have_text("Saved.")


def launch(page: Page) -> None:
    """Running, chosen on the test's page and saved."""
    page.click("#test-tab-details")
    expect(page.locator("#edit-status-badge")).to_have_text("Draft")
    expect(page.locator("#edit-content-problems")).to_have_count(0)
    choose(page, "#edit-status", "Running")
    expect(page.locator("#edit-status-error")).to_have_count(0)
    page.click("#edit-save")
    expect(page.get_by_text("Saved.")).to_be_visible()
    expect(page.locator("#edit-status-badge")).to_have_text("Running")


def invite(page: Page, tag: str, name: str) -> None:
    """The invite page, filtered to one panelist by their last name: one invite sent."""
    page.click("#test-tab-invite")
    expect(page.locator("#invite-test-name")).to_have_text(name)
    table_search(page, "invite-participants", tag)
    expect(page.locator("#invite-matched")).to_have_text("1")
    expect(page.locator("#invite-to-invite")).to_have_text("1")
    page.click("#invite-send")
    page.click("#invite-confirm-confirm")
    expect(page.locator("#invite-result")).to_have_text("1 invite sent.")
    expect(page.locator("#invite-already-invited")).to_have_text("1")


def open_review(page: Page, base: str, test_id: int, review_id: int):
    """The review page of the test, the review opened: its dialog."""
    open_admin(page, base, f"/admin/reviews?test={test_id}")
    row(page, "admin-reviews", review_id).get_by_role("button", name="Open").click()
    dialog = page.get_by_role("dialog")
    expect(dialog.get_by_role("heading", name=f"Review {review_id}")).to_be_visible()
    return dialog


def answered(dialog, question: str, answer: str) -> None:
    """The review shows `answer` under `question` (one answer box holding both)."""
    box = dialog.locator("#review-answers .admin-answer").filter(has_text=question)
    expect(box).to_have_count(1)
    expect(box).to_contain_text(answer)


def close_review(page: Page) -> None:
    page.keyboard.press("Escape")
    expect(page.get_by_role("dialog")).to_have_count(0)


# --- taking a page test (a participant, or staff in the preview) -------------------------------------------


def at_block(page: Page, label: str) -> None:
    expect(page.locator("#highlight-block")).to_have_text(label)


def next_is(page: Page, label: str) -> None:
    expect(page.locator("#highlight-next")).to_have_text(label)


def write(page: Page, answer: str) -> None:
    page.fill("#survey-text", answer)
    expect(page.locator("#survey-text")).to_have_value(answer)


def pick(page: Page, label: str) -> None:
    page.locator("label.survey-option", has_text=label).first.click()
    expect(page.locator("label.survey-option", has_text=label).first.locator("input")).to_be_checked()


def into_the_questions(page: Page, title: str, pages: tuple[str, ...]) -> None:
    """From the test's intro: started, each page read (home page first for pricing), the instructions closed;
    the first impression shows."""
    expect(page.locator("#highlight-title")).to_have_text(title)
    page.click("#start-test")
    for heading in pages:
        expect(page.locator("#precheck-title")).to_have_text(heading)
        expect(page.locator("#precheck-proceed")).to_be_disabled()
        page.click("#precheck-confirm")
        expect(page.locator("#precheck-confirm")).to_be_checked()
        page.click("#precheck-proceed")
    expect(page.locator("#instructions-title")).to_have_text("Welcome!")
    page.keyboard.press("Escape")
    expect(page.locator("#instructions-title")).to_have_count(0)
    at_block(page, "First impression")


def take_a_page(page: Page, url: str) -> None:
    page.goto(url)
    expect(page.locator("#start-test")).to_have_text("Start test now")


def landing_first_impression(page: Page) -> None:
    expect(page.locator("#highlight-question")).to_contain_text(FIRST_IMPRESSION)
    write(page, FIFTEEN_WORDS)
    next_is(page, "Next Highlight")
    page.click("#highlight-next")


def landing_area(page: Page, number: int, of: int) -> None:
    """The area `number` (1 or 2) of the landing-page test answered; on to what follows."""
    at_block(page, f"Offering {number} of {of}")
    expect(page.locator(f"#highlight-area-{number - 1}")).to_have_class(re.compile("highlight-area-current"))
    if number == 1:
        expect(page.locator("#highlight-question")).to_contain_text(AREA_ONE)
        write(page, OTHER_WORDS)
    else:
        expect(page.locator("#highlight-question")).to_contain_text(AREA_TWO)
        write(page, AREA_TWO_ANSWER)
    next_is(page, "Proceed" if number == of else "Next Highlight")
    page.click("#highlight-next")


def landing_after(page: Page) -> None:
    at_block(page, "Overall questions")
    expect(page.locator("#highlight-question")).to_contain_text(AFTER)
    pick(page, AFTER_OPTIONS[0])
    next_is(page, "Submit")
    page.click("#highlight-next")


def pricing_all_the_way(page: Page) -> None:
    into_the_questions(page, "Pricing test", (READ_THE_HOME_PAGE, READ_THE_PAGE))
    expect(page.locator("#highlight-question")).to_contain_text(PRICING_FIRST)
    write(page, FIFTEEN_WORDS)
    page.click("#highlight-next")
    at_block(page, "Highlight 1 of 1")
    expect(page.locator("#toolbar-page")).to_have_attribute("href", PRICING_URL)
    expect(page.locator("#highlight-question")).to_contain_text(PRICING_AREA)
    write(page, PRICING_AREA_ANSWER)
    next_is(page, "Proceed")
    page.click("#highlight-next")
    at_block(page, "Overall questions")
    expect(page.locator("#highlight-question")).to_contain_text(PRICING_AFTER)
    pick(page, "4")
    next_is(page, "Submit")
    page.click("#highlight-next")


def preview_to_the_end(page: Page, take) -> None:
    """The builder's 'Preview' (the saved test: no draft is kept), taken to its end."""
    page.click("#builder-preview")
    expect(page.locator("#preview-marker")).to_be_visible()
    take(page)
    expect(page.locator("#preview-end-title")).to_have_text("End of preview")


def review_of(db, test_id: int, account_id: int) -> Review:
    db.expire_all()
    return db.exec(select(Review).where(Review.test_id == test_id, Review.account_id == account_id)).one()


def version_of(db, review: Review) -> int:
    return db.get(TestVersion, review.version_id).number


def take_landing_to_the_end(page: Page) -> None:
    into_the_questions(page, "Landing page test", (READ_THE_PAGE,))
    landing_first_impression(page)
    landing_area(page, 1, 2)
    landing_area(page, 2, 2)
    landing_after(page)


# --- 1. the landing-page test ----------------------------------------------------------------------------------


@dataclass
class Built:
    test_id: int
    name: str
    reviews: dict[str, int] = field(default_factory=dict)  # who -> review id


_LANDING: dict[str, Built] = {}


def landing_page_test(browser: Browser, app_server) -> Built:
    """The landing-page test built from nothing, taken by an invited participant and read on the review page:
    built once per session (the versions scenario goes on from it)."""
    if "built" in _LANDING:
        return _LANDING["built"]
    base, tag = app_server.url, uuid.uuid4().hex[:6]
    name = f"Flow landing {tag}"
    with app_server.db() as db:
        me = staff(db, roles.TEAM_MANAGER)
        taker = panelist(db, tag)
    staff_context, page = browser_of(browser)
    sign_in(page, base, me.email, STAFF_PASSWORD)
    test_id = new_test(page, base, name, "Highlight · Landing page")

    # The builder: the page's address and its questions; the screenshot is still to come.
    open_build_tab(page, name)
    expect(page.locator("#builder-kind")).to_contain_text("Highlight · Landing page")
    expect(page.locator("#b-url-error")).to_have_text("Is required")
    typed(page, "#b-url", LANDING_URL)
    expect(page.locator("#b-url-error")).to_have_count(0)
    typed(page, "#questions-first-impression-0-text", FIRST_IMPRESSION)
    card = add_question(page, "post-test", "Single choice", 0, AFTER)
    for index, label in enumerate(AFTER_OPTIONS):
        typed(page, f"{card}-options-{index}-label", label)
    expect(page.locator("#b-screenshotUrl-error")).to_have_text("Is required")
    expect(page.locator("#builder-status")).to_have_text("1 problem")

    # The screenshot, uploaded on the Images tab (the builder's own link): the builder shows it.
    page.click("#builder-images-link")
    expect(page.locator("#test-tab-images")).to_have_attribute("aria-current", "page")
    screenshot = upload_image(page, "screenshot", "landing.png", png(1400, 900))
    open_build_tab(page, name)
    expect(page.locator("#b-screenshotUrl")).to_have_value(screenshot)
    expect(page.locator("#b-url")).to_have_value(LANDING_URL)  # the draft kept what was typed
    expect(page.locator("#builder-draft")).to_be_visible()
    shots_at_both_widths(page, "landing-builder", "#builder-status")
    save_builder(page)

    # Two areas drawn on the screenshot, a question on each (the second a short text).
    draw_areas(page, screenshot, [((8, 6), (48, 30)), ((52, 50), (90, 78))])
    ask_in_area(page, 0, AREA_ONE)
    ask_in_area(page, 1, AREA_TWO, "Short text")
    expect(page.locator("#areas-problems")).to_have_count(0)
    page.locator("#area-box-0").focus()
    shots_at_both_widths(page, "areas-editor", "#areas-help")
    save_areas(page)

    # The preview, from the builder, to its end; then launched and one panelist invited.
    open_build_tab(page, name)
    preview_to_the_end(page, take_landing_to_the_end)
    open_admin(page, base, f"/admin/tests/{test_id}")
    launch(page)
    invite(page, tag, name)

    # The participant: the invite on their home page, the test taken to the end in their own browser.
    participant_context, participant = browser_of(browser)
    sign_in(participant, base, taker.email, PASSWORD)
    with app_server.db() as db:
        sent = db.exec(select(Invite).where(Invite.test_id == test_id, Invite.account_id == taker.id)).one()
    offer = row(participant, "invites", sent.id)
    expect(offer).to_contain_text("Landing page")  # participants see the kind, not the test's name
    offer.get_by_role("button", name="Start test").click()
    expect(participant).to_have_url(re.compile(rf"/test/{test_id}/rate"))
    expect(participant.locator("#start-test")).to_have_text("Start test now")
    take_landing_to_the_end(participant)
    expect(participant.locator("#thank-you-title")).to_be_visible()
    participant_context.close()

    # The review page: every answer under its question, the areas' too.
    with app_server.db() as db:
        review = review_of(db, test_id, taker.id)
        assert version_of(db, review) == 1
    dialog = open_review(page, base, test_id, review.id)
    expect(dialog.locator("#review-version")).to_have_text(" (version 1)")
    answered(dialog, FIRST_IMPRESSION, FIFTEEN_WORDS)
    answered(dialog, AREA_ONE, OTHER_WORDS)
    answered(dialog, AREA_TWO, AREA_TWO_ANSWER)
    answered(dialog, AFTER, AFTER_OPTIONS[0])
    expect(dialog.locator("#review-answers .admin-answer")).to_have_count(4)
    staff_context.close()

    built = Built(test_id=test_id, name=name, reviews={"first": review.id})
    _LANDING["built"] = built
    return built


def test_a_landing_page_test_built_from_nothing_is_taken_to_the_end_and_read_on_the_review_page(
    browser: Browser, app_server, db
):
    built = landing_page_test(browser, app_server)
    saved = db.get(Test, built.test_id)
    assert (saved.status, saved.product_type, saved.url) == ("running", "landing-page", LANDING_URL)
    assert [a["questions"][0]["text"] for a in saved.selected_areas] == [AREA_ONE, AREA_TWO]
    assert saved.draft_document is None


# --- 2. the pricing test -----------------------------------------------------------------------------------


def test_a_pricing_test_built_from_nothing_with_its_home_and_pricing_pages(
    page: Page, browser: Browser, app_server, db
):
    base, tag = app_server.url, uuid.uuid4().hex[:6]
    name = f"Flow pricing {tag}"
    me = staff(db, roles.TEAM_OWNER)
    taker = panelist(db, tag)
    sign_in(page, base, me.email, STAFF_PASSWORD)
    test_id = new_test(page, base, name, "Pricing · Pricing test")

    open_build_tab(page, name)
    expect(page.locator("#b-pricingUrl-error")).to_have_text("Is required")
    typed(page, "#b-url", HOME_URL)
    typed(page, "#b-pricingUrl", PRICING_URL)
    typed(page, "#questions-first-impression-0-text", PRICING_FIRST)
    add_question(page, "post-test", "Rating", 0, PRICING_AFTER)
    expect(page.locator("#builder-status")).to_have_text("2 problems")  # the two screenshots

    page.click("#builder-images-link")
    home = upload_image(page, "screenshot", "home.png", png(1400, 900))
    pricing = upload_image(page, "pricing-screenshot", "pricing.png", png(1400, 1000))
    assert home != pricing
    open_build_tab(page, name)
    expect(page.locator("#b-screenshotUrl")).to_have_value(home)
    expect(page.locator("#b-pricingScreenshotUrl")).to_have_value(pricing)
    shots_at_both_widths(page, "pricing-builder", "#builder-status")
    save_builder(page)

    # One area, on the pricing page (the page the areas are on in a pricing test).
    draw_areas(page, pricing, [((10, 20), (60, 55))])
    ask_in_area(page, 0, PRICING_AREA, "Short text")
    save_areas(page)

    open_build_tab(page, name)
    preview_to_the_end(page, pricing_all_the_way)
    open_admin(page, base, f"/admin/tests/{test_id}")
    launch(page)
    invite(page, tag, name)

    context, participant = browser_of(browser)
    sign_in(participant, base, taker.email, PASSWORD)
    take_a_page(participant, f"{base}/test/{test_id}/rate")
    pricing_all_the_way(participant)
    expect(participant.locator("#thank-you-title")).to_be_visible()
    context.close()

    review = review_of(db, test_id, taker.id)
    assert set(review.answers) == {"first-impression", "highlight-1", "post-test"}
    dialog = open_review(page, base, test_id, review.id)
    answered(dialog, PRICING_FIRST, FIFTEEN_WORDS)
    answered(dialog, PRICING_AREA, PRICING_AREA_ANSWER)
    answered(dialog, PRICING_AFTER, "4")
    expect(dialog.locator("#review-answers .admin-answer")).to_have_count(3)
    db.expire_all()
    saved = db.get(Test, test_id)
    assert (saved.url, saved.pricing_url, saved.screenshot_url, saved.pricing_screenshot_url) == (
        HOME_URL,
        PRICING_URL,
        home,
        pricing,
    )


# --- 3. versions: an area removed while a participant is in the middle ----------------------------------------


def test_an_area_removed_while_a_participant_is_mid_test_makes_version_2_and_every_answer_stays_readable(
    page: Page, browser: Browser, app_server, db
):
    base = app_server.url
    built = landing_page_test(browser, app_server)  # one review (version 1) already
    second, third = invited(db, db.get(Test, built.test_id), 1500), invited(db, db.get(Test, built.test_id), 1500)
    me = staff(db, roles.TEAM_MANAGER)

    # The second participant starts, answers the first impression, and is at the first area.
    second_context, them = browser_of(browser)
    sign_in(them, base, second.email, PASSWORD)
    take_a_page(them, f"{base}/test/{built.test_id}/rate")
    into_the_questions(them, "Landing page test", (READ_THE_PAGE,))
    landing_first_impression(them)
    at_block(them, "Offering 1 of 2")
    db.expire_all()
    assert db.exec(
        select(ReviewSession.status).where(
            ReviewSession.test_id == built.test_id, ReviewSession.account_id == second.id
        )
    ).all() == ["active"]

    # Staff remove the second area: the editor says who is on version 1, and saves version 2 once confirmed.
    sign_in(page, base, me.email, STAFF_PASSWORD)
    open_admin(page, base, f"/admin/tests/{built.test_id}/areas")
    expect(page.locator("#area-box-1")).to_be_visible()
    page.click("#area-1-delete")
    expect(page.locator("#area-box-1")).to_have_count(0)
    page.click("#areas-save")
    dialog = page.locator("#areas-new-version")
    expect(dialog).to_contain_text("1 person is taking version 1 now and 1 review was submitted on it.")
    expect(page.locator("#areas-new-version-confirm")).to_have_text("Save as version 2")
    animations_finished(page, "#areas-new-version")
    flow_shot(page, "areas-new-version-1280")
    page.click("#areas-new-version-confirm")
    expect(page.get_by_text("Highlight areas saved.")).to_be_visible()
    expect(page.locator("#areas-new-version")).to_have_count(0)
    db.expire_all()
    assert list(
        db.exec(select(TestVersion.number).where(TestVersion.test_id == built.test_id).order_by(TestVersion.number))
    ) == [1, 2]

    # The second participant goes on with version 1: the removed area is still asked, and accepted.
    landing_area(them, 1, 2)
    landing_area(them, 2, 2)
    landing_after(them)
    expect(them.locator("#thank-you-title")).to_be_visible()
    second_context.close()
    on_one = review_of(db, built.test_id, second.id)
    assert version_of(db, on_one) == 1 and on_one.answers["highlight-2"][0]["value"] == AREA_TWO_ANSWER

    # A third participant gets version 2: one area only.
    third_context, newcomer = browser_of(browser)
    sign_in(newcomer, base, third.email, PASSWORD)
    take_a_page(newcomer, f"{base}/test/{built.test_id}/rate")
    into_the_questions(newcomer, "Landing page test", (READ_THE_PAGE,))
    landing_first_impression(newcomer)
    expect(newcomer.locator(".highlight-area")).to_have_count(1)
    landing_area(newcomer, 1, 1)
    landing_after(newcomer)
    expect(newcomer.locator("#thank-you-title")).to_be_visible()
    third_context.close()
    on_two = review_of(db, built.test_id, third.id)
    assert version_of(db, on_two) == 2 and set(on_two.answers) == {"first-impression", "highlight-1", "post-test"}

    # The review page: the first review and the second still show the removed area's question; the third not.
    for review_id in (built.reviews["first"], on_one.id):
        shown = open_review(page, base, built.test_id, review_id)
        expect(shown.locator("#review-version")).to_have_text(" (version 1)")
        answered(shown, AREA_TWO, AREA_TWO_ANSWER)
        answered(shown, AREA_ONE, OTHER_WORDS)
        expect(shown).not_to_contain_text("highlight-2.")
        close_review(page)
    shown = open_review(page, base, built.test_id, on_two.id)
    expect(shown.locator("#review-version")).to_have_text(" (version 2)")
    answered(shown, AREA_ONE, OTHER_WORDS)
    expect(shown).not_to_contain_text(AREA_TWO)
