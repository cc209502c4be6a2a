"""'Report a problem' (issue 38, item 4) in Chromium: two participants of a small test report a problem from the
survey's question step; the test pauses (the second reporter's page says so at once), a third participant sees
that it is paused, staff resume it on /admin/reports and a reporter goes on at the question they were on. In
another run staff close the paused test and the reporters are paid pro rata (their rewards tab lists it). axe finds
nothing in the dialog and on the reports page; screenshots go to $SCREENSHOT_DIR (or the test's tmp dir)."""

from __future__ import annotations

import os
import re
from datetime import timedelta
from pathlib import Path

from playwright.sync_api import Browser, Page, expect
from sqlmodel import select

from portal.domain import problem_reports as rules
from portal.domain.staff import roles
from portal.models import Invite, Reward, Test
from portal.models._base import utcnow
from tests.e2e.helpers import sign_in
from tests.e2e.test_accessibility import assert_accessible
from tests.e2e.test_admin import STAFF_PASSWORD, open_admin, staff
from tests.e2e.test_survey import PASSWORD, continue_to, option, start
from tests.support.factories import make_participant
from tests.support.people import demo_test


def _shots(tmp_path: Path) -> Path:
    out = Path(os.environ.get("SCREENSHOT_DIR") or tmp_path)
    out.mkdir(parents=True, exist_ok=True)
    return out


def small_test(db) -> Test:
    test = demo_test(db, "01-survey.json")
    test.status, test.launched_at, test.participant_limit, test.seniority_limits = "running", utcnow(), 10, {}
    db.add(test)
    db.commit()
    return test


def taking(browser: Browser, app_server, db, test: Test) -> tuple[Page, int]:
    """A new invited participant in a browser of their own, at the survey's second question shown."""
    who = make_participant(db, password=PASSWORD)
    db.add(Invite(account_id=who.id, test_id=test.id, amount_cents=3000, expires_at=utcnow() + timedelta(hours=24)))
    db.commit()
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    sign_in(page, app_server.url, who.email, PASSWORD)
    start(page, app_server.url, test)
    option(page, "I recommend tools to the decision maker")
    continue_to(page, "Question 5/13")
    return page, who.id


def report(page: Page, category: str, text: str) -> None:
    page.get_by_role("button", name=rules.BUTTON).click()
    dialog = page.get_by_role("dialog")
    expect(dialog.get_by_role("heading", name=rules.TITLE)).to_be_visible()
    dialog.get_by_label("What kind of problem?").select_option(label=category)
    dialog.get_by_label("What happened?").fill(text)
    dialog.get_by_role("button", name="Send report").click()


def paused_page(page: Page) -> None:
    expect(page.locator("#access-title")).to_have_text("Test paused")
    expect(page.locator("#access-text")).to_contain_text("your answers are kept")


def test_two_reports_pause_a_small_test_a_third_sees_it_and_staff_resume_it(browser: Browser, app_server, db, tmp_path):
    test = small_test(db)
    first, _ = taking(browser, app_server, db, test)
    first.get_by_role("button", name=rules.BUTTON).click()
    dialog = first.get_by_role("dialog")
    dialog.get_by_role("button", name="Send report").click()  # nothing chosen, nothing written
    expect(first.locator("#report-category-error")).to_have_text(rules.CATEGORY_REQUIRED)
    expect(first.locator("#report-text-error")).to_have_text(rules.TEXT_REQUIRED)
    assert_accessible(first, "the report dialog")
    first.screenshot(path=str(_shots(tmp_path) / "report-dialog-1280.png"))
    dialog.get_by_label("What kind of problem?").select_option(label="Timer problem")
    dialog.get_by_label("What happened?").fill("The timer jumped from 14:00 to 02:00.")
    dialog.get_by_role("button", name="Send report").click()
    expect(first.get_by_text(rules.THANKS)).to_be_visible()
    expect(first.locator("#survey-progress")).to_have_text("Question 5/13")  # still taking it

    second, _ = taking(browser, app_server, db, test)
    report(second, "A question is unclear or wrong", "Question 5 lists the same option twice.")
    paused_page(second)  # the report paused it: the page says so at once
    first.reload()
    paused_page(first)

    third = browser.new_page(viewport={"width": 1280, "height": 900})
    who = make_participant(db, password=PASSWORD)
    db.add(Invite(account_id=who.id, test_id=test.id, amount_cents=3000, expires_at=utcnow() + timedelta(hours=24)))
    db.commit()
    third_invite = db.exec(select(Invite).where(Invite.account_id == who.id)).one()
    sign_in(third, app_server.url, who.email, PASSWORD)
    invite_row = third.locator(f"[data-testid=invites-row][data-row-id='{third_invite.id}']")
    expect(invite_row).to_contain_text("Paused")  # the home table offers no 'Start test' for a paused test
    expect(invite_row.get_by_role("button", name="Start test")).to_have_count(0)
    third.goto(f"{app_server.url}/test/{test.id}/rate")
    paused_page(third)
    third.set_viewport_size({"width": 375, "height": 800})
    third.screenshot(path=str(_shots(tmp_path) / "test-paused-375.png"), full_page=True)

    desk = browser.new_page(viewport={"width": 1280, "height": 900})
    manager = staff(db, roles.TEAM_OWNER)
    sign_in(desk, app_server.url, manager.email, STAFF_PASSWORD)
    open_admin(desk, app_server.url, f"/admin/reports?test={test.id}")
    card = desk.locator(f'.paused-test[data-test="{test.id}"]')
    expect(card).to_contain_text(test.name)
    expect(card).to_contain_text("2 reporters")
    expect(desk.locator("#reports-table tbody tr")).to_have_count(2)
    expect(desk.locator("#reports-table")).to_contain_text("The timer jumped from 14:00 to 02:00.")
    assert_accessible(desk, "/admin/reports with a paused test")
    desk.screenshot(path=str(_shots(tmp_path) / "admin-reports-1280.png"), full_page=True)
    card.get_by_role("button", name="Resume").click()
    expect(desk.get_by_text(re.compile(r"The test runs again; 2 open sessions' time moved on"))).to_be_visible()

    first.reload()
    expect(first.locator("#survey-progress")).to_have_text("Question 5/13")  # where they were
    expect(first.locator("#taking-timer-text")).to_contain_text(re.compile(r"\d\d:\d\d left"))
    third.reload()
    expect(third.locator("#survey-welcome")).to_be_visible()
    third.goto(f"{app_server.url}/")
    expect(invite_row.get_by_role("button", name="Start test")).to_be_visible()  # running again


def test_staff_close_a_paused_test_and_the_reporters_are_paid_pro_rata(browser: Browser, app_server, db):
    test = small_test(db)
    first, first_id = taking(browser, app_server, db, test)
    report(first, "The page will not load", "The images do not load.")
    expect(first.get_by_text(rules.THANKS)).to_be_visible()
    second, second_id = taking(browser, app_server, db, test)
    report(second, "Something else", "The page froze.")
    paused_page(second)

    desk = browser.new_page(viewport={"width": 1280, "height": 900})
    manager = staff(db, roles.TEAM_OWNER)
    sign_in(desk, app_server.url, manager.email, STAFF_PASSWORD)
    open_admin(desk, app_server.url, f"/admin/reports?test={test.id}")
    desk.locator(f'.paused-test[data-test="{test.id}"]').get_by_role("button", name="Close and pay reporters").click()
    dialog = desk.get_by_role("alertdialog")
    expect(dialog.locator("#close-confirm-title")).to_have_text(f"Close {test.name}?")
    dialog.get_by_role("button", name="Close and pay").click()
    expect(desk.get_by_text("The test is closed; 2 reporters paid pro rata.")).to_be_visible()

    db.expire_all()
    rewards = db.exec(select(Reward).where(Reward.test_id == test.id).order_by(Reward.account_id)).all()
    assert [(r.account_id, r.kind) for r in rewards] == [(first_id, "pro-rata"), (second_id, "pro-rata")]
    assert all(0 < r.amount_cents < 3000 and r.approved_at is not None for r in rewards)
    first.goto(f"{app_server.url}/")
    first.click("#tab-rewards")
    row = first.locator(f'#rewards [data-testid="rewards-row"][data-row-id="{rewards[0].id}"]')
    expect(row).to_contain_text("(pro rata: closed after reports)")
