"""Taking the demo survey in Chromium: a branch to the end, thank-you, one review and one reward."""

from __future__ import annotations

import json
import os
import re
from datetime import timedelta
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect
from sqlmodel import func, select

from portal.models import Invite, Review, ReviewSession, Reward, Test
from portal.models._base import utcnow
from portal.services.definition_import import import_test
from tests.e2e.helpers import sign_in
from tests.support.factories import make_participant

PASSWORD = "Correct-Horse-42!"
DEMO_TESTS = Path(__file__).resolve().parents[2] / "portal/data/demo_tests"
DEMO_SURVEY = "Demo: Survey - How teams buy analytics software"
FIFTEEN_WORDS = "We compared three vendors over two months and picked the one our analysts liked best overall."


@pytest.fixture(autouse=True)
def leave_warnings(page: Page) -> list[str]:
    """Leaving while the time runs asks first: the browser's 'leave site?' dialog is recorded, then accepted."""
    seen: list[str] = []

    def accept(dialog) -> None:
        seen.append(dialog.type)
        dialog.accept()

    page.on("dialog", accept)
    return seen


def survey_test(db) -> Test:
    return db.exec(select(Test).where(Test.name == DEMO_SURVEY)).one()


def invited_participant(db, test: Test):
    account = make_participant(db, password=PASSWORD)
    db.add(Invite(account_id=account.id, test_id=test.id, amount_cents=2500, expires_at=utcnow() + timedelta(hours=24)))
    db.commit()
    return account


def counts(db, test_id: int, account_id: int) -> tuple[int, int, str]:
    db.expire_all()
    reviews = db.exec(
        select(func.count()).select_from(Review).where(Review.test_id == test_id, Review.account_id == account_id)
    ).one()
    rewards = db.exec(
        select(func.count()).select_from(Reward).where(Reward.test_id == test_id, Reward.account_id == account_id)
    ).one()
    invite = db.exec(select(Invite.status).where(Invite.test_id == test_id, Invite.account_id == account_id)).one()
    return reviews, rewards, invite


def option(page: Page, label: str):
    page.locator("label.survey-option", has_text=label).first.click()


def at_question(page: Page, progress: str) -> None:
    """The question is shown and the page has scrolled to its top (as it does on each question)."""
    expect(page.locator("#survey-progress")).to_have_text(progress)
    page.wait_for_function("window.scrollY === 0")


def continue_to(page: Page, progress: str) -> None:
    page.click("#survey-continue")
    at_question(page, progress)


def start(page: Page, base: str, test: Test) -> None:
    page.goto(f"{base}/test/{test.id}/rate")
    expect(page.locator("#survey-welcome")).to_be_visible()
    expect(page.locator("#survey-agreements li")).to_have_count(4)
    page.click("#start-survey")
    expect(page.locator("#survey-progress")).to_have_text("Question 1/13")
    expect(page.locator("#taking-timer-text")).to_contain_text(re.compile(r"\d\d:\d\d left"))
    expect(page).to_have_url(re.compile(rf"/test/{test.id}/rate/questions/0"))


def begin(page: Page, app_server, db) -> tuple[Test, object]:
    """A new invited participant signs in and starts the demo survey."""
    test = survey_test(db)
    account = invited_participant(db, test)
    sign_in(page, app_server.url, account.email, PASSWORD)
    start(page, app_server.url, test)
    return test, account


def answer_five(page: Page) -> None:
    """Five answers on the influencer route: the branch (to page 3, question 5), the ranking, the
    rating, the matrix (agree / disagree) and, after a description, the editable single choice."""
    option(page, "I recommend tools to the decision maker")
    continue_to(page, "Question 5/13")
    page.click("#rank-keep")
    continue_to(page, "Question 6/13")
    option(page, "4")
    continue_to(page, "Question 7/13")
    page.click("#cell-0-2")
    page.click("#cell-1-0")
    continue_to(page, "Question 8/13")
    continue_to(page, "Question 9/13")  # a description
    option(page, "Ask peers")


def answer_influencer_route_up_to_job_title(page: Page) -> None:
    """The five answers, then up to the job title (question 11) and on to question 12."""
    answer_five(page)
    continue_to(page, "Question 10/13")
    continue_to(page, "Question 11/13")  # optional multi-choice
    page.fill("#survey-text", "Head of data")
    continue_to(page, "Question 12/13")


def finish(page: Page) -> None:
    page.fill("#survey-text", "Too short answer")
    page.click("#survey-continue")
    expect(page.locator("#survey-error")).to_have_text("Your answer is too short, please make it at least 15 words.")
    expect(page.locator("#survey-hint")).to_have_text("Your answer should be at least 15 words long")
    # Pasting records where the text came from (the paste metadata of the answer).
    page.evaluate(
        """(text) => {
        const box = document.getElementById('survey-text');
        const data = new DataTransfer();
        data.setData('text/plain', text);
        box.dispatchEvent(new ClipboardEvent('paste', {clipboardData: data, bubbles: true}));
    }""",
        FIFTEEN_WORDS,
    )
    page.fill("#survey-text", FIFTEEN_WORDS)
    expect(page.locator("#survey-error")).to_have_count(0)
    continue_to(page, "Question 13/13")
    expect(page.locator("#survey-submit")).to_be_visible()
    page.click("#survey-submit")
    expect(page.locator("#thank-you-title")).to_have_text("Thank you!")


def test_survey_through_a_branch_to_the_end_gives_one_review_and_one_reward(page: Page, app_server, db):
    test, account = begin(page, app_server, db)
    expect(page.locator("#survey-required")).to_be_visible()
    # No answer: Continue shows the required message and stays.
    page.click("#survey-continue")
    expect(page.locator("#survey-error")).to_have_text("Answer is required")
    answer_influencer_route_up_to_job_title(page)
    # Back follows the recorded history, and Continue comes back.
    page.click("#survey-back")
    at_question(page, "Question 11/13")
    expect(page.locator("#survey-text")).to_have_value("Head of data")
    page.click("#survey-back")
    at_question(page, "Question 10/13")
    continue_to(page, "Question 11/13")
    continue_to(page, "Question 12/13")
    finish(page)
    expect(page.locator("#thank-you-reward")).to_contain_text("$25.00")  # the invite's amount
    expect(page.locator("#thank-you-home")).to_be_visible()
    shot(page, "thank-you-1280")
    assert counts(db, test.id, account.id) == (1, 1, "completed")
    stored = db.exec(select(Review).where(Review.test_id == test.id, Review.account_id == account.id)).one()
    assert stored.answers["involvement"]["value"] == "influencer"
    assert "tools-used" not in stored.answers  # on the branch not taken
    assert stored.answers["last-purchase"]["value"] == FIFTEEN_WORDS
    assert stored.answers["last-purchase"]["pasteMetadata"]["wasPasted"] is True
    assert stored.answers["last-purchase"]["pasteMetadata"]["pastedLength"] == len(FIFTEEN_WORDS)
    # The seconds on each question answered, measured on the server (issue 36), to 0.1 s.
    seconds = {k: stored.signals.get(f"question:{k}") for k in stored.answers}
    assert all(isinstance(v, float) and 0 <= v < 600 for v in seconds.values()), seconds
    # The rewards table shows the completed review once.
    page.goto(f"{app_server.url}/")
    page.click("#tab-rewards")
    rows = page.locator("[data-testid=rewards-row]")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("$25")
    expect(rows.first).to_contain_text("Survey")
    # Opening the test again: already reviewed.
    page.goto(f"{app_server.url}/test/{test.id}/rate")
    expect(page.locator("#access-text")).to_have_text("You've already reviewed this test.")


def set_hidden(page: Page, hidden: bool) -> None:
    """The tab is left (or shown again): the document says so and tells its listeners."""
    page.evaluate(
        """(hidden) => {
        const state = hidden ? 'hidden' : 'visible';
        Object.defineProperty(document, 'visibilityState', {configurable: true, get: () => state});
        Object.defineProperty(document, 'hidden', {configurable: true, get: () => hidden});
        document.dispatchEvent(new Event('visibilitychange'));
    }""",
        hidden,
    )


def test_typing_time_and_leaving_the_tab_are_stored_with_the_review(page: Page, app_server, db):
    """Issue 36: the free-text answer's typing time and the tab left while on it (count and seconds away)
    reach the review with the answer's own events (no event of their own)."""
    test, account = begin(page, app_server, db)
    answer_influencer_route_up_to_job_title(page)
    box = page.locator("#survey-text")
    box.press_sequentially(FIFTEEN_WORDS, delay=15)
    expect(box).to_have_value(FIFTEEN_WORDS)
    set_hidden(page, True)
    page.wait_for_function("() => (window.portalTaking.measures() || {})['leaves:last-purchase'] === 1")
    # Away for 90 seconds: the page's clock is moved on instead of waiting (the measure is the time until the
    # tab shows again), then set back.
    page.evaluate("() => { window.__realNow = Date.now; Date.now = () => window.__realNow() + 90000; }")
    set_hidden(page, False)
    page.wait_for_function("() => (window.portalTaking.measures() || {})['away:last-purchase'] >= 90")
    page.evaluate("() => { Date.now = window.__realNow; }")
    continue_to(page, "Question 13/13")
    page.click("#survey-submit")
    expect(page.locator("#thank-you-title")).to_have_text("Thank you!")
    db.expire_all()
    stored = db.exec(select(Review).where(Review.test_id == test.id, Review.account_id == account.id)).one()
    signals = stored.signals
    assert 0.5 < signals["typing:last-purchase"] < 120, signals
    assert signals["leaves:last-purchase"] == 1, signals
    assert 90 <= signals["away:last-purchase"] < 120, signals
    assert "question:last-purchase" in signals and "leaves:job-title" not in signals


def test_the_end_page_branch_submits_at_once_and_drops_nothing_else(page: Page, app_server, db):
    test, account = begin(page, app_server, db)
    option(page, "I am not involved")
    expect(page.locator("#survey-submit")).to_be_visible()  # the end page (999) follows: Submit, not Continue
    page.click("#survey-submit")
    expect(page.locator("#thank-you-title")).to_be_visible()
    assert counts(db, test.id, account.id) == (1, 1, "completed")


def test_a_reload_resumes_at_the_same_question_with_the_typed_text(page: Page, app_server, db, leave_warnings):
    test, account = begin(page, app_server, db)
    answer_influencer_route_up_to_job_title(page)
    page.fill("#survey-text", "Typed just before the reload")
    # The keystroke is in local storage at once; the reload comes before the debounced event sends it.
    page.wait_for_function(
        "([key, text]) => Object.values(JSON.parse(window.localStorage.getItem(key) || '{}')"
        ".answers || {}).some((answer) => answer && answer.value === text)",
        arg=[f"{test.id}-survey-answers", "Typed just before the reload"],
    )
    page.reload()
    assert "beforeunload" in leave_warnings  # the time is running: the browser asked before leaving
    expect(page.locator("#survey-progress")).to_have_text("Question 12/13")
    expect(page.locator("#survey-text")).to_have_value("Typed just before the reload")
    page.click("#survey-back")
    expect(page.locator("#survey-text")).to_have_value("Head of data")


def test_a_reload_whose_portal_script_arrives_late_still_restores_the_typed_text(
    page: Page, app_server, db, leave_warnings
):
    """The page's first events call window.portalTaking before a slow /portal.js has run: they wait
    for it (no browser exception; the suite fails on any console error) and the local copy returns."""
    test, account = begin(page, app_server, db)
    option(page, "I am not involved")
    expect(page.locator("#survey-submit")).to_be_visible()
    # The server's reply is in this browser's copy (local storage).
    page.wait_for_function(
        "(key) => (JSON.parse(window.localStorage.getItem(key) || '{}').answers || {}).involvement?.value === 'none'",
        arg=f"{test.id}-survey-answers",
    )
    # The script's request waits, and the page goes on without it, until the server has answered the
    # reloaded page with a call into the script (the frame that carries it): then the script comes.
    held: list = []
    called: list[bool] = []

    def hold(route) -> None:
        if called:
            route.continue_()
        else:
            held.append(route)

    def on_socket(ws) -> None:
        def received(payload) -> None:
            if isinstance(payload, str) and "window.portalTaking" in payload:
                called.append(True)
                while held:
                    held.pop().continue_()

        ws.on("framereceived", received)

    page.on("websocket", on_socket)
    page.route("**/portal.js*", hold)
    page.reload()
    expect(page.locator("#survey-progress")).to_have_text(re.compile(r"Question \d+/13"))
    expect(page.get_by_label("I am not involved")).to_be_checked()
    page.unroute_all(behavior="wait")


def record_sent_events(page: Page) -> list[str]:
    """The names of the events the page sends over its websocket from now on ('hydrate_and_load' for the
    one carried by the Socket.IO CONNECT packet), in order."""
    names: list[str] = []

    def on_socket(ws) -> None:
        def sent(payload) -> None:
            if isinstance(payload, str) and (
                payload.startswith("42") or (payload.startswith("40") and '"event"' in payload)
            ):
                names.append(payload.split('"name":"', 1)[-1].split('"', 1)[0].rsplit(".", 1)[-1])

        ws.on("framesent", sent)

    page.on("websocket", on_socket)
    return names


def test_the_test_shows_with_the_page_s_one_load_event(page: Page, app_server, db, leave_warnings):
    """Opening a test sends one event (the hydrate, which runs the page's one load handler): the survey's
    welcome comes with it, and the view sends no event of its own to start. Resuming after a reload
    sends none more either when this browser's copy is not newer than the server's draft."""
    test = survey_test(db)
    account = invited_participant(db, test)
    sign_in(page, app_server.url, account.email, PASSWORD)
    sent = record_sent_events(page)
    page.goto(f"{app_server.url}/test/{test.id}/rate")
    expect(page.locator("#survey-welcome")).to_be_visible()
    expect(page.locator("#survey-title")).not_to_be_empty()
    assert sent == ["hydrate_and_load"]
    page.click("#start-survey")
    expect(page.locator("#survey-progress")).to_have_text("Question 1/13")
    option(page, "I recommend tools to the decision maker")
    continue_to(page, "Question 5/13")
    sent.clear()
    page.reload()
    expect(page.locator("#survey-progress")).to_have_text("Question 5/13")
    assert sent == ["hydrate_and_load"]


def test_two_tabs_submitting_the_same_survey_store_one_review(page: Page, app_server, db):
    test, account = begin(page, app_server, db)
    option(page, "I am not involved")
    expect(page.locator("#survey-submit")).to_be_visible()
    second = page.context.new_page()
    second.goto(f"{app_server.url}/test/{test.id}/rate")
    second.wait_for_selector("#portal-ready", state="attached")
    expect(second.locator("#survey-submit")).to_be_visible()  # same session, same question, same answer
    page.click("#survey-submit")
    second.click("#survey-submit")
    expect(page.locator("#thank-you-title")).to_be_visible()
    expect(second.locator("#thank-you-title, #survey-reviewed").first).to_be_visible()
    assert counts(db, test.id, account.id) == (1, 1, "completed")


def test_time_up_clears_the_session_and_offers_a_restart(page: Page, app_server, db):
    test, account = begin(page, app_server, db)
    option(page, "I recommend tools to the decision maker")
    # The server's deadline passes (moved into the past); the browser's countdown reaches zero.
    row = db.exec(select(ReviewSession).where(ReviewSession.account_id == account.id)).one()
    row.deadline_at = utcnow() - timedelta(seconds=30)
    db.add(row)
    db.commit()
    page.reload()
    expect(page.locator("#access-text")).to_have_text("Your session has expired. You can restart the review.")
    shot(page, "session-expired-1280")
    page.click("#access-link")
    expect(page.locator("#survey-welcome")).to_be_visible()
    page.click("#start-survey")
    expect(page.locator("#survey-progress")).to_have_text("Question 1/13")
    expect(page.locator("label.survey-option input:checked")).to_have_count(0)  # a fresh start


def move_deadline(db, account_id: int, seconds: int) -> None:
    db.expire_all()
    row = db.exec(
        select(ReviewSession).where(ReviewSession.account_id == account_id, ReviewSession.status == "active")
    ).one()
    row.deadline_at = utcnow() + timedelta(seconds=seconds)
    db.add(row)
    db.commit()


def test_timeout_warning_extends_once_and_the_countdown_ends_the_session(page: Page, app_server, db):
    test, account = begin(page, app_server, db)
    option(page, "I recommend tools to the decision maker")
    move_deadline(db, account.id, 4 * 60)
    page.reload()
    dialog = page.get_by_role("alertdialog")
    expect(dialog).to_contain_text("Timeout warning")
    page.click("#timeout-extend")
    expect(dialog).to_have_count(0)
    expect(page.locator("#taking-timer-text")).to_contain_text(re.compile(r"^1[34]:\d\d left"))
    db.expire_all()
    row = db.exec(
        select(ReviewSession).where(ReviewSession.account_id == account.id, ReviewSession.status == "active")
    ).one()
    assert row.extensions == 1
    # The answer given before is still there.
    expect(page.locator("label.survey-option", has_text="I recommend tools").locator("input")).to_be_checked()
    # At zero: 'Time is up.', the session is cleared and the page offers a restart.
    move_deadline(db, account.id, 3)
    page.reload()
    expect(page.get_by_text("Time is up.")).to_be_visible(timeout=20000)
    expect(page.locator("#access-text")).to_have_text("Your session has expired. You can restart the review.")
    page.wait_for_function(f"() => window.localStorage.getItem('{test.id}-survey-answers') === null")


def shot(page: Page, name: str) -> None:
    out = Path(os.environ.get("SCREENSHOT_DIR", "/tmp/survey-shots"))
    out.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(out / f"{name}.png"), full_page=True)


@pytest.mark.parametrize("width", [1280, 375])
def test_decider_route_live_messages_and_screens(page: Page, app_server, db, width):
    """The decider branch (page 2): choice limits, 'other', number limits; screenshots at both widths."""
    test = survey_test(db)
    account = invited_participant(db, test)
    sign_in(page, app_server.url, account.email, PASSWORD)
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{app_server.url}/test/{test.id}/rate")
    expect(page.locator("#survey-welcome")).to_be_visible()
    shot(page, f"welcome-{width}")
    page.click("#start-survey")
    at_question(page, "Question 1/13")
    expect(page.get_by_text("You have 60 minutes to complete the test.")).to_be_visible()
    option(page, "I make or approve the decision")
    shot(page, f"single-{width}")
    continue_to(page, "Question 2/13")
    for label in ("Spreadsheets", "A BI suite", "Product analytics", "Web analytics"):
        option(page, label)
    expect(page.locator("#survey-error")).to_have_text("You can select between 1 and 3 options")
    option(page, "Web analytics")
    expect(page.locator("#survey-error")).to_have_count(0)
    option(page, "Other")
    page.locator("#survey-other-text").press_sequentially("x" * 101)  # the 101st character is refused (issue 40)
    expect(page.locator("#survey-other-text")).to_have_value("x" * 100)
    page.fill("#survey-other-text", "Homegrown dashboards")
    expect(page.locator("#survey-error")).to_have_text("You can select between 1 and 3 options")  # 'other' counts
    option(page, "Spreadsheets")
    expect(page.locator("#survey-error")).to_have_count(0)
    shot(page, f"multi-{width}")
    continue_to(page, "Question 3/13")
    page.fill("#survey-number", "1000000")
    page.click("#survey-continue")
    expect(page.locator("#survey-error")).to_have_text("Number must be less than or equal to 999999")
    page.fill("#survey-number", "25000")
    continue_to(page, "Question 4/13")
    expect(page.locator("#survey-required")).to_have_count(0)  # optional
    page.fill("#survey-number", "140")
    page.click("#survey-continue")
    expect(page.locator("#survey-error")).to_have_text("Number must be less than or equal to 100")
    page.fill("#survey-number", "")
    continue_to(page, "Question 5/13")
    shot(page, f"rank-{width}")
    page.get_by_role("button", name="Move Support up").click()
    expect(page.locator("#survey-rank li").nth(2)).to_contain_text("Support")
    continue_to(page, "Question 6/13")
    shot(page, f"rating-{width}")
    option(page, "5")
    continue_to(page, "Question 7/13")
    page.click("#cell-0-0")
    page.click("#survey-continue")
    expect(page.locator("#survey-error")).to_have_text("Answer is required for all statements in the row")
    page.click("#cell-1-2")
    shot(page, f"matrix-{width}")
    continue_to(page, "Question 8/13")
    video = page.locator('iframe[title="Question video"]')
    expect(video).to_be_visible()
    assert video.get_attribute("allowfullscreen") is not None  # an attribute, not a CSS property
    box = video.bounding_box()
    if width >= 640:  # 600 x 400 (issue 40)
        assert (round(box["width"]), round(box["height"])) == (600, 400), box
    else:  # scaled down on a phone, its shape kept
        assert box["width"] < 600 and abs(box["height"] - box["width"] * 400 / 600) <= 2, box
    shot(page, f"description-{width}")
    if width == 375:
        assert page.evaluate("document.documentElement.scrollWidth") <= 376
    # Back follows the history through page 2, the branch's page.
    for progress in (
        "Question 7/13",
        "Question 6/13",
        "Question 5/13",
        "Question 4/13",
        "Question 3/13",
        "Question 2/13",
    ):
        page.click("#survey-back")
        at_question(page, progress)
    expect(page.locator("#survey-other-text")).to_have_value("Homegrown dashboards")
    page.click("#survey-back")
    at_question(page, "Question 1/13")
    # Changing the branch answer resets the later answers and the history.
    option(page, "I recommend tools to the decision maker")
    continue_to(page, "Question 5/13")
    page.click("#survey-back")
    at_question(page, "Question 1/13")
    option(page, "I make or approve the decision")
    continue_to(page, "Question 2/13")
    expect(page.locator("label.survey-option input:checked")).to_have_count(0)


PUBLIC_TEST = "Demo: Public qualification - Developer tools survey"


def test_a_public_respondent_takes_a_public_qualification_test_without_an_account(page: Page, app_server, db):
    test = db.exec(select(Test).where(Test.name == PUBLIC_TEST)).one()
    page.goto(f"{app_server.url}/test/{test.id}/rate")
    expect(page.locator("#survey-welcome")).to_be_visible()
    page.click("#start-survey")
    at_question(page, "Question 1/2")
    expect(page.get_by_text("You have 15 minutes to complete the test.")).to_be_visible()
    option(page, "Python")
    continue_to(page, "Question 2/2")
    # The last question's Submit stays disabled until every required answer is valid.
    expect(page.locator("#survey-submit")).to_be_disabled()
    page.fill("#survey-text", "GitHub Actions")
    expect(page.locator("#survey-submit")).to_be_enabled()
    page.fill("#survey-text", "   ")
    expect(page.locator("#survey-submit")).to_be_disabled()
    page.fill("#survey-text", "GitHub Actions")
    page.click("#survey-submit")
    # Personal info for a qualification-based audience: first name, job title, e-mail, LinkedIn.
    expect(page.locator("#personal-info-title")).to_have_text("Personal info")
    expect(page.locator("#survey-banner")).to_contain_text("Please make sure to comment on messaging and content.")
    for field in ("firstName", "jobTitle", "email", "linkedin"):
        expect(page.locator(f"#detail-{field}")).to_be_visible()
    expect(page.locator("#detail-phoneNumber")).to_have_count(0)
    page.click("#details-submit")
    expect(page.locator("#detail-firstName-error")).to_be_visible()
    assert db.exec(select(func.count()).select_from(Review).where(Review.test_id == test.id)).one() == 0
    page.fill("#detail-firstName", "Robin")
    page.fill("#detail-jobTitle", "Staff engineer")
    page.fill("#detail-email", "robin.dev@example.org")
    page.fill("#detail-linkedin", "linkedin.com/in/robin-dev")
    shot(page, "personal-info-1280")
    page.click("#details-submit")
    expect(page.locator("#thank-you-title")).to_be_visible()
    expect(page.locator("#thank-you-promo")).to_contain_text("Sign up")
    shot(page, "thank-you-public-1280")
    db.expire_all()
    review = db.exec(select(Review).where(Review.test_id == test.id)).one()
    assert review.account_id is None and review.respondent_key.startswith("public:")
    assert review.worker_data["firstName"] == "Robin" and review.worker_data["email"] == "robin.dev@example.org"
    assert review.answers["dev-ci"]["value"] == "GitHub Actions"
    # This browser recorded the test as completed: opening it again shows the completed state.
    page.goto(f"{app_server.url}/test/{test.id}/rate")
    expect(page.locator("#completed-text")).to_be_visible()


def test_a_signed_out_respondent_of_a_public_test_with_a_screener_goes_straight_to_the_survey(
    page: Page, app_server, db
):
    """Signed-out respondents are not screened (docs/decisions.md): the survey opens, never an empty
    'Screening question' page."""
    data = json.loads((DEMO_TESTS / "08-public-qualification.json").read_text())
    data["name"] = "Public qualification with a screener"
    data["screenerQuestion"] = json.loads((DEMO_TESTS / "07-screener.json").read_text())["screenerQuestion"]
    test = import_test(db, data)
    db.commit()
    page.goto(f"{app_server.url}/test/{test.id}/rate")
    expect(page.locator("#survey-welcome")).to_be_visible()
    expect(page.locator("#screener-heading")).to_have_count(0)
    page.click("#start-survey")
    at_question(page, "Question 1/2")


def test_a_signed_out_visitor_of_a_members_test_signs_in_first(page: Page, app_server, db):
    test = survey_test(db)
    page.goto(f"{app_server.url}/test/{test.id}/rate?respondent_project_id=p-1")
    expect(page).to_have_url(re.compile(r"/sign-in"))


def test_unknown_and_removed_tests(page: Page, app_server, db):
    page.goto(f"{app_server.url}/test/999999/rate")
    expect(page.locator("#not-found-text")).to_be_visible()
    page.goto(f"{app_server.url}/test/abc/rate")
    expect(page.locator("#not-found-text")).to_be_visible()


SCREENER_TEST = "Demo: Screener - Finance tooling survey"


def test_the_screener_is_judged_on_the_server_once(page: Page, app_server, db):
    test = db.exec(select(Test).where(Test.name == SCREENER_TEST)).one()
    failing = invited_participant(db, test)
    sign_in(page, app_server.url, failing.email, PASSWORD)
    page.goto(f"{app_server.url}/test/{test.id}/rate")
    expect(page.locator("#screener-heading")).to_have_text("Screening question")
    expect(page.locator("#screener-confirm")).to_be_disabled()
    # The correct answers never reach the browser.
    assert "isCorrect" not in page.content()
    page.click("#screener-answer-1")
    page.click("#screener-confirm")
    expect(page.locator("#screener-failed")).to_contain_text(
        "your response does not match the requirements for this test"
    )
    expect(page.locator("#screener-failed")).not_to_contain_text("...")  # the whole text (issue 40)
    page.goto(f"{app_server.url}/test/{test.id}/rate")  # one response: still failed
    expect(page.locator("#screener-failed")).to_be_visible()
    shot(page, "screener-failed-1280")
    # A way back home, where the test has left the open invites: 'Not a fit', no 'Start test'.
    page.get_by_role("link", name="Back to your tests").click()
    expect(page).to_have_url(re.compile(r"/$"))
    invite_row = page.locator('[data-testid="invites-row"]', has_text=test.name)
    expect(invite_row).to_contain_text("Not a fit")
    expect(invite_row.get_by_role("button", name="Start test")).to_have_count(0)

    page.context.clear_cookies()
    passing = invited_participant(db, test)
    sign_in(page, app_server.url, passing.email, PASSWORD)
    page.goto(f"{app_server.url}/test/{test.id}/rate")
    page.click("#screener-answer-0")
    page.click("#screener-confirm")
    expect(page.locator("#survey-welcome")).to_be_visible()
