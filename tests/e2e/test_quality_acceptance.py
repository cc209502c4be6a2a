"""Issue 36's acceptance, in Chromium: quality flags staff can trust, three decisions and one appeal.

On a copy of the demo survey of its own: participant A takes it pasting the last-purchase answer and leaving the tab
twice while writing the job title; participant C takes it typing the text of review B, written before C's; B
finished in a tenth of the test's median time, which six honest reviews set (10 minutes; A and C took 8 and 9). B and
the honest reviews are written in the database as a submission stores them. On /admin/reviews?test=ID staff check
the flags: each review shows its own flags (and an honest one none), the evidence card shows each finding with its
value and the test's median, and filtering by a flag finds exactly the flagged reviews of the test. Staff exclude B
(its reward is still payable and the participant reads 'Approved'; it is gone from the results page and its CSV),
reject C with a reason and evidence (C reads them and appeals); the staff member who rejected cannot decide the
appeal, in the page nor by a raw websocket event; a second staff member overturns it and C's reward becomes payable.

Screenshots at 1280 and 375 px: $SCREENSHOT_DIR/quality-reviews-*.png, quality-evidence-*.png."""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, expect
from sqlmodel import select

from portal.domain.quality.flags import TITLES, duration
from portal.domain.staff import appeals as appeal_rules
from portal.domain.staff import reviews as decisions
from portal.domain.staff import roles
from portal.http.client import SESSION_COOKIE
from portal.models import Account, Review, ReviewAppeal, ReviewSession, Reward, Test, TestVersion
from portal.models._base import utcnow
from portal.services.quality_flags import seconds_between
from portal.states.admin.appeals import AdminAppealsState
from tests.e2e.conftest import wait_for_hydration
from tests.e2e.helpers import animations_finished, sign_in
from tests.e2e.taking import invited
from tests.e2e.test_accessibility import assert_accessible
from tests.e2e.test_admin import STAFF_PASSWORD, open_admin, row, staff
from tests.e2e.test_results_acceptance import copy_of, download
from tests.e2e.test_survey import PASSWORD, answer_five, continue_to, set_hidden
from tests.e2e.test_survey import start as start_survey
from tests.support import quality_reviews as q
from tests.support import results
from tests.support.raw_tab import RawTab, run

JOB_TITLE = "Head of data analytics"
PASTED = (
    "Our finance lead met a vendor at a conference, we ran a short trial with two analysts and bought the team "
    "plan within a week."
)
AWAY_SECONDS = 20  # each of A's two leaves of the tab while writing the job title
JOB_QUESTION = "'What is your job title?'"
PURCHASE_QUESTION = "'Tell us about the last time your team bought an analytics t…'"
EVIDENCE_WORDS = "Your answer about the last purchase is word for word another participant's earlier answer."
APPEAL = "I wrote that answer myself from my own notes; we did compare three vendors over two months."
HONEST = 6
MEDIAN = 600  # seconds: the honest reviews' time, the test's median


@contextmanager
def browser_page(browser: Browser, width: int = 1280) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": width, "height": 900})
    context.set_default_timeout(20000)
    try:
        page = wait_for_hydration(context.new_page())
        page.on("dialog", lambda dialog: dialog.accept())  # leaving while the survey's time runs asks first
        yield page
    finally:
        context.close()


def measure(page: Page, name: str) -> str:
    return f"(window.portalTaking.measures() || {{}})['{name}']"


def leave_the_tab(page: Page, seconds: int, leaves: int) -> None:
    """The participant leaves the tab while writing and comes back `seconds` later: the page's clock is moved on
    instead of waiting (the measure is the time until the tab shows again), then set back."""
    set_hidden(page, True)
    page.wait_for_function(f"() => {measure(page, 'leaves:job-title')} === {leaves}")
    before = page.evaluate(f"() => {measure(page, 'away:job-title')} || 0")
    page.evaluate("(ms) => { window.__realNow = Date.now; Date.now = () => window.__realNow() + ms; }", seconds * 1000)
    set_hidden(page, False)
    page.wait_for_function(f"(before) => {measure(page, 'away:job-title')} >= before + {seconds}", arg=before)
    page.evaluate("() => { Date.now = window.__realNow; }")


def up_to_the_job_title(page: Page, base: str, test: Test) -> None:
    start_survey(page, base, test)
    answer_five(page)
    continue_to(page, "Question 10/13")
    continue_to(page, "Question 11/13")  # optional multi-choice


def submit(page: Page) -> None:
    continue_to(page, "Question 13/13")
    page.click("#survey-submit")
    expect(page.locator("#thank-you-title")).to_have_text("Thank you!")


def paster_and_tab_leaver(page: Page, base: str, test: Test) -> None:
    """A: types the job title and leaves the tab twice while on it, then pastes the last-purchase answer."""
    up_to_the_job_title(page, base, test)
    box = page.locator("#survey-text")
    box.press_sequentially(JOB_TITLE, delay=15)
    expect(box).to_have_value(JOB_TITLE)
    leave_the_tab(page, AWAY_SECONDS, 1)
    leave_the_tab(page, AWAY_SECONDS, 2)
    continue_to(page, "Question 12/13")
    page.evaluate(
        """(text) => {
        const box = document.getElementById('survey-text');
        const data = new DataTransfer();
        data.setData('text/plain', text);
        box.dispatchEvent(new ClipboardEvent('paste', {clipboardData: data, bubbles: true}));
    }""",
        PASTED,
    )
    page.fill("#survey-text", PASTED)
    submit(page)


def copier(page: Page, base: str, test: Test) -> None:
    """C: types the job title, then types review B's text as the last-purchase answer."""
    up_to_the_job_title(page, base, test)
    page.locator("#survey-text").press_sequentially("Data lead", delay=15)
    continue_to(page, "Question 12/13")
    box = page.locator("#survey-text")
    box.press_sequentially(q.COPIED, delay=5)
    expect(box).to_have_value(q.COPIED)
    submit(page)


def seeded_review(db, test: Test, account: Account, text: str, seconds: float, signals: dict[str, Any]) -> Review:
    """A submitted review taking `seconds`, as a submission stores it (not committed: the caller commits)."""
    version = db.exec(select(TestVersion.id).where(TestVersion.test_id == test.id)).first()
    started = utcnow() - timedelta(hours=1)  # recent: the automatic approval leaves it alone
    session = ReviewSession(
        test_id=test.id,
        version_id=version,
        account_id=account.id,
        respondent_key=str(account.id),
        started_at=started,
        deadline_at=started + timedelta(hours=1),
        status="submitted",
    )
    db.add(session)
    db.flush()
    review = Review(
        test_id=test.id,
        version_id=version,
        account_id=account.id,
        respondent_key=str(account.id),
        session_id=session.id,
        kind="survey",
        answers=q.answers(text),
        signals=signals,
        created_at=started + timedelta(seconds=seconds),
        status="submitted",
    )
    db.add(review)
    db.flush()
    return review


def retime(db, review: Review, seconds: float) -> None:
    """The review took `seconds`: its session's start is moved back from its submission (instead of waiting)."""
    session = db.get(ReviewSession, review.session_id)
    session.started_at = review.created_at - timedelta(seconds=seconds)
    db.add(session)


def taken(db, review: Review) -> float:
    session = db.get(ReviewSession, review.session_id)
    seconds = seconds_between(session.started_at, review.created_at)
    assert seconds is not None
    return seconds


def submitted(db, test_id: int, account_id: int) -> Review:
    return db.exec(select(Review).where(Review.test_id == test_id, Review.account_id == account_id)).one()


def reward_of(db, review_id: int) -> Reward:
    return db.exec(select(Reward).where(Reward.review_id == review_id)).one()


ROWS = '#admin-reviews [data-testid="admin-reviews-row"]'


def shown_ids(page: Page, expected: set[int]) -> None:
    """The table shows exactly these reviews."""
    expect(page.locator(ROWS)).to_have_count(len(expected))
    for review_id in expected:
        expect(row(page, "admin-reviews", review_id)).to_be_visible()


def badges(page: Page, review_id: int):
    return row(page, "admin-reviews", review_id).locator(".review-flags [data-flag]")


def filter_by(page: Page, off: str | None, on: str) -> None:
    page.click("#admin-reviews-filters-toggle")
    expect(page.locator("#admin-reviews-filters")).to_be_visible()
    if off:
        page.click(f"#admin-reviews-filter-flag-{off}")
    page.click(f"#admin-reviews-filter-flag-{on}")
    page.click("#admin-reviews-filters-apply")


def open_detail(page: Page, review_id: int) -> None:
    row(page, "admin-reviews", review_id).get_by_role("button", name="Open").click()
    expect(page.get_by_role("dialog")).to_contain_text(f"Review {review_id}")


def close_detail(page: Page) -> None:
    page.keyboard.press("Escape")
    expect(page.get_by_role("dialog")).to_have_count(0)


def card_row(page: Page, label: str):
    return page.locator("#evidence-card tbody tr").filter(has=page.get_by_role("rowheader", name=label, exact=True))


def expect_card(page: Page, label: str, value: str, median: str) -> None:
    line = card_row(page, label)
    expect(line).to_have_count(1)
    expect(line.locator("td")).to_have_text([value, median])


def expect_findings(page: Page, findings: list[tuple[str, str]]) -> None:
    """The detail's flags: each its title and its plain-language label, the strongest first."""
    items = page.locator("#review-flags li.evidence-flag")
    expect(items).to_have_count(len(findings))
    for i, (key, label) in enumerate(findings):
        expect(items.nth(i)).to_have_attribute("data-flag", key)
        expect(items.nth(i)).to_have_text(f"{TITLES[key]}{label}")


def results_and_csv(page: Page, base: str, test: Test, count: int) -> set[str]:
    """The results page's count of reviews and the participants of its CSV export."""
    page.goto(f"{base}/admin/tests/{test.id}/results")
    expect(page.locator("#results-reviews")).to_have_text(f"{count} reviews in these results")
    rows = list(csv.DictReader(io.StringIO(download(page, "#results-export-csv").decode("utf-8-sig"))))
    assert len(rows) == count
    return {r["Participant"] for r in rows}


def dismiss(page: Page, message: str) -> None:
    """The toast says so, and the staff member closes it."""
    toast = page.locator("[data-sonner-toast]").filter(has_text=message)
    expect(toast).to_be_visible()
    toast.get_by_role("button", name="Close toast").click()
    expect(toast).to_have_count(0)


def screenshots() -> Path:
    out = Path(os.environ.get("SCREENSHOT_DIR") or "/tmp/quality-shots")
    out.mkdir(parents=True, exist_ok=True)
    return out


async def decide_raw(base: str, cookie: str, appeal_id: int) -> str:
    """The rejecter's own session overturns the appeal by hand-written websocket events."""
    name = AdminAppealsState.get_full_name()
    tab = RawTab(base, cookie=cookie)
    await tab.open("/admin/appeals", settle=0.3)
    await tab.answer(f"{name}.load_page", {}, settle=0.2)
    await tab.answer(f"{name}.ask_overturn", {"appeal_id": str(appeal_id)}, settle=0.1)
    await tab.answer(f"{name}.set_decide_note", {"note": "Overturned by the one who rejected."}, settle=0.1)
    await tab.answer(f"{name}.confirm_decide", {}, settle=0.4)
    text = tab.text()
    await tab.close()
    return text


def test_flags_staff_can_trust_three_decisions_and_one_appeal(browser: Browser, app_server, db):
    base = app_server.url
    test = copy_of(db, "01-survey.json")
    manager, owner = staff(db, roles.TEAM_MANAGER), staff(db, roles.TEAM_OWNER)
    a, c = invited(db, test, cents=2500), invited(db, test, cents=2500)

    # B, written before C's review (whose text copies B's), with its pending reward.
    b_account = results.participant(db)
    b = seeded_review(db, test, b_account, q.COPIED, MEDIAN, {"question:last-purchase": 20.0})
    db.add(Reward(review_id=b.id, account_id=b_account.id, amount_cents=2500, status="PENDING"))
    db.commit()

    with browser_page(browser) as page:
        sign_in(page, base, a.email, PASSWORD)
        paster_and_tab_leaver(page, base, test)
    with browser_page(browser) as page:
        sign_in(page, base, c.email, PASSWORD)
        copier(page, base, test)

    db.expire_all()
    a_review, c_review = submitted(db, test.id, a.id), submitted(db, test.id, c.id)
    assert b.id < c_review.id
    signals = a_review.signals
    assert signals["leaves:job-title"] == 2, signals
    away = signals["away:job-title"]
    assert 2 * AWAY_SECONDS <= away < 2 * AWAY_SECONDS + 60, signals
    assert a_review.answers["last-purchase"]["pasteMetadata"]["pastedLength"] == len(PASTED)
    assert "pasteMetadata" not in c_review.answers["last-purchase"]  # typed, not pasted
    assert c_review.answers["last-purchase"]["value"] == q.COPIED

    # A browser takes seconds where a person takes minutes: A spent 8 minutes and C 9 (plus the browser's
    # seconds; their sessions' starts are moved back instead of waiting), B a tenth of the median the six honest
    # reviews set. The honest reviews are written last, in one commit, so that the flags are computed (by 'Check
    # flags now' or the every-minute job, whichever comes first) on these times.
    for review, minutes in ((a_review, 8), (c_review, 9)):
        retime(db, review, minutes * 60 + taken(db, review))
    retime(db, b, MEDIAN / 10)
    db.commit()
    a_seconds, c_seconds = taken(db, a_review), taken(db, c_review)
    people = [results.participant(db) for _ in range(HONEST)]
    honest = [
        seeded_review(
            db,
            test,
            who,
            q.HONEST_TEXTS[i],
            MEDIAN,
            {
                "question:job-title": 8.0 + i,
                "typing:job-title": 4.0 + i,
                "question:last-purchase": 60.0 + i,
                "typing:last-purchase": 45.0 + i,
            },
        )
        for i, who in enumerate(people)
    ]
    db.commit()
    every = {a_review.id, b.id, c_review.id, *(r.id for r in honest)}

    with browser_page(browser) as page:
        sign_in(page, base, manager.email, STAFF_PASSWORD)
        open_admin(page, base, f"/admin/reviews?test={test.id}")
        shown_ids(page, every)
        page.click("#check-flags")
        dismiss(page, "Quality flags checked.")
        expect(page.locator("#flags-checked")).to_contain_text("Quality flags checked ")

        # Each review its own flags, the strongest first; an honest review none.
        expect(badges(page, a_review.id)).to_have_text([TITLES["pasted"], TITLES["left-tab"]])
        expect(badges(page, a_review.id).first).to_have_attribute("data-flag", "pasted")
        expect(badges(page, b.id)).to_have_text([TITLES["speeder"]])
        expect(badges(page, c_review.id)).to_have_text([TITLES["copied"]])
        for review in honest:
            expect(badges(page, review.id)).to_have_count(0)
            expect(row(page, "admin-reviews", review.id)).not_to_contain_text("Flags not checked yet")
        assert_accessible(page, "the reviews page with quality flags")
        # The table scrolls sideways: to its end, where the flags are (a page as tall as the table, so that the
        # screenshot needs no resize, which would scroll the table back).
        page.set_viewport_size({"width": 1280, "height": 1100})
        badges(page, a_review.id).first.evaluate(
            """(badge) => { for (let el = badge.closest('td'); el; el = el.parentElement) {
                if (el.scrollWidth > el.clientWidth + 1) el.scrollLeft = el.scrollWidth; } }"""
        )
        page.screenshot(path=str(screenshots() / "quality-reviews-1280.png"))
        page.set_viewport_size({"width": 1280, "height": 900})

        # The evidence card: each finding in plain words, with its value and the test's median.
        total = len(JOB_TITLE) + len(PASTED)
        open_detail(page, a_review.id)
        expect_findings(
            page,
            [
                (
                    "pasted",
                    f"Pasted {round(100 * len(PASTED) / total)}% of the typed text ({len(PASTED)} of {total} "
                    "characters); 1 answer mostly pasted",
                ),
                ("left-tab", f"Left the tab 2 times during a text answer, {duration(away)} away"),
            ],
        )
        expect_card(page, f"Left the tab or window while answering {JOB_QUESTION}", "2 times", "0 times")
        expect_card(page, f"Time away from the tab while answering {JOB_QUESTION}", duration(away), "0 s")
        expect_card(
            page,
            f"Pasted into {PURCHASE_QUESTION}",
            f"{len(PASTED)} of {len(PASTED)} characters (100%)",
            "—",
        )
        expect_card(page, "Time on the whole test", duration(a_seconds), duration(MEDIAN))
        close_detail(page)

        open_detail(page, b.id)
        expect_findings(
            page,
            [("speeder", f"Finished in {duration(MEDIAN / 10)} — the median is {duration(MEDIAN)} (under a quarter)")],
        )
        expect_card(page, "Time on the whole test", duration(MEDIAN / 10), duration(MEDIAN))
        animations_finished(page, "#evidence-card")
        page.locator("#evidence-card").scroll_into_view_if_needed()
        assert_accessible(page, "a review's evidence card")
        page.screenshot(path=str(screenshots() / "quality-evidence-1280.png"))  # the dialog, as seen
        close_detail(page)

        open_detail(page, c_review.id)
        expect_findings(page, [("copied", f"The same text as review #{b.id}")])
        expect_card(page, "Time on the whole test", duration(c_seconds), duration(MEDIAN))
        close_detail(page)

        open_detail(page, honest[0].id)
        expect(page.locator("#review-no-flags")).to_have_text("No quality flags.")
        expect(page.locator("#review-flags")).to_have_count(0)
        expect_card(page, "Time on the whole test", duration(MEDIAN), duration(MEDIAN))
        close_detail(page)

        # Filtering by a flag finds exactly the reviews raising it.
        page.click("#admin-reviews-filters-toggle")
        panel = page.locator("#admin-reviews-filters")
        expect(panel).to_contain_text("Quality flag")
        for key, title in TITLES.items():  # each flag a checkbox named by its title
            expect(panel.get_by_role("checkbox", name=title, exact=True)).to_have_id(f"admin-reviews-filter-flag-{key}")
        animations_finished(page, "#admin-reviews-filters")
        assert_accessible(page, "the filters panel with the quality flags")
        page.click("#admin-reviews-filters-toggle")
        expect(page.locator("#admin-reviews-filters")).to_have_count(0)
        filter_by(page, None, "pasted")
        shown_ids(page, {a_review.id})
        filter_by(page, "pasted", "left-tab")
        shown_ids(page, {a_review.id})
        filter_by(page, "left-tab", "speeder")
        shown_ids(page, {b.id})
        filter_by(page, "speeder", "copied")
        shown_ids(page, {c_review.id})
        page.click("#admin-reviews-filters-toggle")
        page.click("#admin-reviews-filter-flag-speeder")
        page.click("#admin-reviews-filters-apply")
        shown_ids(page, {b.id, c_review.id})
        page.click("#admin-reviews-filters-toggle")
        page.click("#admin-reviews-filters-reset")
        shown_ids(page, every)  # still this test's reviews only
        page.click("#admin-reviews-filters-toggle")
        expect(page.locator("#admin-reviews-filters")).to_have_count(0)

        # At phone width: the rows as cards with their flags, and the evidence card.
        page.set_viewport_size({"width": 375, "height": 800})
        expect(badges(page, a_review.id)).to_have_text([TITLES["pasted"], TITLES["left-tab"]])
        page.screenshot(path=str(screenshots() / "quality-reviews-375.png"), full_page=True)
        open_detail(page, a_review.id)
        animations_finished(page, "#evidence-card")
        expect(page.locator("#review-flags li.evidence-flag")).to_have_count(2)
        page.locator("#review-flags").scroll_into_view_if_needed()
        assert_accessible(page, "a review's evidence card at phone width")
        page.screenshot(path=str(screenshots() / "quality-evidence-375.png"))
        close_detail(page)
        page.set_viewport_size({"width": 1280, "height": 900})

        # In the results and the export before any decision: all nine.
        assert str(b_account.id) in results_and_csv(page, base, test, len(every))

        # Exclude B: paid, but left out of the results and their export.
        open_admin(page, base, f"/admin/reviews?test={test.id}")
        open_detail(page, b.id)
        page.click("#detail-exclude")
        expect(page.locator("#exclude-confirm")).to_be_visible()
        page.click("#exclude-confirm-confirm")
        expect(page.get_by_text("1 review excluded.")).to_be_visible()
        expect(row(page, "admin-reviews", b.id)).to_contain_text(decisions.STATUS_LABELS[decisions.EXCLUDED])
        participants = results_and_csv(page, base, test, len(every) - 1)
        assert str(b_account.id) not in participants and str(a.id) in participants
        db.expire_all()
        paid = reward_of(db, b.id)
        assert (paid.status, paid.approved_at is not None) == ("PENDING", True)

        # Reject C with a reason and the evidence it rests on.
        open_admin(page, base, f"/admin/reviews?test={test.id}")
        open_detail(page, c_review.id)
        page.click("#detail-reject")
        page.click("#reject-reason")
        page.get_by_role("option", name=decisions.REJECTION_REASONS["duplicate"]).click()
        # The review's own flag is ticked as the evidence to start with; the others are not.
        expect(page.get_by_role("checkbox", name=decisions.EVIDENCE_FLAGS["copied"])).to_be_checked()
        expect(page.get_by_role("checkbox", name=decisions.EVIDENCE_FLAGS["speeder"])).not_to_be_checked()
        page.fill("#reject-evidence", EVIDENCE_WORDS)
        page.locator("#reject-evidence").blur()
        page.click("#reject-confirm")
        expect(page.get_by_text("1 review rejected.")).to_be_visible()
        expect(row(page, "admin-reviews", c_review.id)).to_contain_text(decisions.REJECTION_REASONS["duplicate"])
        db.expire_all()
        c_reward = reward_of(db, c_review.id)
        assert c_reward.status == "CANCELED"

        # B reads an approved reward.
        with browser_page(browser) as theirs:
            sign_in(theirs, base, b_account.email, PASSWORD)
            theirs.click("#tab-rewards")
            stage = row(theirs, "rewards", paid.id).locator('[data-testid="reward-stage"]')
            expect(stage).to_have_text(decisions.STAGE_APPROVED)
            expect(row(theirs, "rewards", paid.id).locator('[data-testid="reward-stage-detail"]')).to_contain_text(
                "Expected by "
            )

        # C reads the reason and the evidence, and appeals.
        with browser_page(browser) as theirs:
            sign_in(theirs, base, c.email, PASSWORD)
            theirs.click("#tab-rewards")
            mine = row(theirs, "rewards", c_reward.id)
            expect(mine.locator('[data-testid="reward-stage"]')).to_have_text(decisions.STAGE_REJECTED)
            expect(mine.locator('[data-testid="reward-stage-detail"]')).to_have_text(
                decisions.REJECTION_REASONS["duplicate"]
            )
            expect(mine.locator('[data-testid="reward-evidence"]')).to_have_text(
                f"Evidence: {decisions.EVIDENCE_FLAGS['copied']}. {EVIDENCE_WORDS}"
            )
            mine.get_by_role("button", name="Appeal").click()
            page_dialog = theirs.get_by_role("dialog")
            expect(page_dialog).to_contain_text("Appeal the rejection")
            theirs.fill("#appeal-message", APPEAL)
            theirs.locator("#appeal-message").blur()
            theirs.click("#appeal-send")
            expect(page_dialog).to_have_count(0)
            expect(mine.locator('[data-testid="reward-appeal"]')).to_have_text(
                appeal_rules.decision_words(appeal_rules.OPEN)
            )
        db.expire_all()
        appeal = db.exec(select(ReviewAppeal).where(ReviewAppeal.review_id == c_review.id)).one()
        assert (appeal.status, appeal.message) == ("open", APPEAL)

        # The staff member who rejected sees the appeal and cannot decide it: not in the page, nor by hand.
        open_admin(page, base, "/admin/appeals")
        own = row(page, "admin-appeals", appeal.id)
        expect(own).to_contain_text(APPEAL)
        expect(own).to_contain_text("You rejected it: another staff member decides.")
        expect(own.get_by_role("button", name="Overturn")).to_have_count(0)
        expect(own.get_by_role("button", name="Uphold")).to_have_count(0)
        cookie = next(k for k in page.context.cookies() if k["name"] == SESSION_COOKIE)
        sent = run(decide_raw(base, f"{SESSION_COOKIE}={cookie['value']}", appeal.id))
        assert appeal_rules.OWN_REJECTION in sent
        db.expire_all()
        assert db.get(ReviewAppeal, appeal.id).status == "open"
        assert db.get(Review, c_review.id).status == decisions.REJECTED

    # A second staff member overturns it: the review is approved and the reward payable.
    with browser_page(browser) as page:
        sign_in(page, base, owner.email, STAFF_PASSWORD)
        open_admin(page, base, "/admin/appeals")
        theirs_row = row(page, "admin-appeals", appeal.id)
        expect(theirs_row).to_contain_text(f"Rejected by {manager.email}")
        theirs_row.get_by_role("button", name="Overturn").click()
        expect(page.get_by_role("dialog")).to_contain_text("Overturn the rejection?")
        page.fill("#appeal-note", "Typed in the page, and the two texts may share a source.")
        page.locator("#appeal-note").blur()
        page.click("#appeal-decide-confirm")
        expect(page.get_by_text("Appeal overturned: the participant is told.")).to_be_visible()
        expect(theirs_row).to_have_count(0)
        # Back in the results: eight of the nine (B is still excluded).
        participants = results_and_csv(page, base, test, len(every) - 1)
        assert str(c.id) in participants and str(b_account.id) not in participants
    db.expire_all()
    assert db.get(Review, c_review.id).status == decisions.APPROVED
    payable = db.get(Reward, c_reward.id)
    assert (payable.status, payable.approved_at is not None) == ("PENDING", True)

    with browser_page(browser) as theirs:
        sign_in(theirs, base, c.email, PASSWORD)
        theirs.click("#tab-rewards")
        mine = row(theirs, "rewards", c_reward.id)
        expect(mine.locator('[data-testid="reward-stage"]')).to_have_text(decisions.STAGE_APPROVED)
        expect(mine.locator('[data-testid="reward-appeal"]')).to_have_text(
            appeal_rules.decision_words(appeal_rules.OVERTURNED)
        )
