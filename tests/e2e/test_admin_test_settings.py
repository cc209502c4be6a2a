"""Staff make a test from nothing and set it up in Chromium (issue 34): 'New test' makes a draft and opens its
page; the settings form speaks dollars, offers the spec's duration, quota and exclusion window, and shows what
invitees earn; 'Duplicate' makes a draft copy; a test scheduled for a time in UTC starts running when the
launch job runs, and is stopped and resumed from its page. Screenshots at 1280 and 375 px."""

from __future__ import annotations

import json
import re
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect
from sqlmodel import select

from portal.domain.definition import PAYOUT_TOO_HIGH
from portal.domain.staff import roles
from portal.models import AuditEntry, Test
from portal.models._base import utcnow
from portal.services.admin.launches import launch_scheduled
from portal.services.definition_import import import_test
from tests.e2e.helpers import animations_finished, sign_in
from tests.e2e.test_admin import STAFF_PASSWORD, open_admin, row, staff, table_search

SHOTS = Path("/work/shots")
DEMO_SURVEY = Path(__file__).resolve().parents[2] / "portal" / "data" / "demo_tests" / "01-survey.json"


def shot(page: Page, name: str, *, full_page: bool = True) -> None:
    if SHOTS.is_dir():
        page.screenshot(path=str(SHOTS / f"settings-{name}.png"), full_page=full_page)


def choose(page: Page, select_id: str, option: str) -> None:
    page.click(f"#{select_id}")
    page.get_by_role("option", name=option, exact=True).click()
    expect(page.locator(f"#{select_id}")).to_have_text(option)


def test_new_test_opens_a_draft_whose_settings_speak_dollars_and_a_copy_is_a_draft(page: Page, app_server, db):
    me = staff(db, roles.TEAM_MANAGER)
    name = f"E2E new {uuid.uuid4().hex[:8]}"
    sign_in(page, app_server.url, me.email, STAFF_PASSWORD)
    open_admin(page, app_server.url, "/admin/tests")

    page.click("#tests-new")
    dialog = page.locator("#new-test-dialog")
    expect(dialog.get_by_role("heading", name="New test")).to_be_visible()
    page.fill("#new-test-name", "")
    page.click("#new-test-create")
    expect(page.locator("#new-test-name-error")).to_have_text("Enter a name for the test.")
    page.fill("#new-test-name", name)
    expect(page.locator("#new-test-name-error")).to_have_count(0)
    choose(page, "new-test-type", "Highlight · Landing page")
    animations_finished(page, "#new-test-dialog")
    shot(page, "new-test-1280", full_page=False)
    page.click("#new-test-create")

    expect(page).to_have_url(re.compile(r"/admin/tests/\d+$"))
    expect(page.locator("#edit-test-name")).to_have_text(name)
    expect(page.locator("#edit-status-badge")).to_have_text("Draft")
    test = db.exec(select(Test).where(Test.name == name)).one()
    assert test.status == "draft" and test.product_type == "landing-page" and test.draft_document["questions"]
    # Its content is still to build: listed, and it cannot launch yet.
    expect(page.locator("#edit-content-problems")).to_contain_text("url: is required")

    # The payout speaks dollars; invitees' earnings show beside it.
    page.fill("#edit-payout", "2000")
    expect(page.locator("#edit-payout-error")).to_have_text(PAYOUT_TOO_HIGH)
    expect(page.locator("#edit-save")).to_be_disabled()
    page.fill("#edit-payout", "27.50")
    expect(page.locator("#edit-payout-error")).to_have_count(0)
    expect(page.locator("#edit-rates")).to_contain_text("specialist$5$10")
    expect(page.locator("#edit-payout-note")).to_contain_text("This test's payout ($27.50) is not what invitees earn")
    choose(page, "edit-session", "15 minutes")
    choose(page, "edit-limit", "15 (97% of problems)")
    choose(page, "edit-exclusion", "30 days")
    choose(page, "edit-status", "Running")
    expect(page.locator("#edit-status-error")).to_contain_text("fix them before it becomes running")
    choose(page, "edit-status", "Draft")
    shot(page, "form-1280")
    page.click("#edit-save")
    expect(page.get_by_text("Saved.")).to_be_visible()
    db.expire_all()
    saved = db.get(Test, test.id)
    assert (saved.payout_cents, saved.session_seconds, saved.participant_limit, saved.exclusion_days) == (
        2750,
        900,
        15,
        30,
    )

    # Duplicate from the list: a draft copy with the same settings.
    open_admin(page, app_server.url, "/admin/tests")
    table_search(page, "admin-tests", name)
    row(page, "admin-tests", test.id).get_by_role("button", name="Duplicate").click()
    expect(page.get_by_text(f"Made “Copy of {name}”, a draft copy.")).to_be_visible()
    db.expire_all()
    copy = db.exec(select(Test).where(Test.name == f"Copy of {name}")).one()
    assert (copy.status, copy.payout_cents, copy.exclusion_days) == ("draft", 2750, 30)
    table_search(page, "admin-tests", f"Copy of {name}")
    expect(row(page, "admin-tests", copy.id)).to_contain_text("Draft")


@pytest.mark.parametrize("width", [375])
def test_the_new_test_dialog_and_the_settings_form_on_a_phone(browser: Browser, app_server, db, width):
    me = staff(db, roles.TEAM_MANAGER)
    doc = json.loads(DEMO_SURVEY.read_text())
    doc.update(name=f"E2E phone {uuid.uuid4().hex[:8]}", status="draft")
    test = import_test(db, doc)
    db.commit()
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.set_default_timeout(20000)
    page = context.new_page()
    sign_in(page, app_server.url, me.email, STAFF_PASSWORD)  # the helper looks for the desktop header
    page.set_viewport_size({"width": width, "height": 800})
    open_admin(page, app_server.url, "/admin/tests")
    page.click("#tests-new")
    expect(page.locator("#new-test-name")).to_be_visible()
    animations_finished(page, "#new-test-dialog")
    shot(page, f"new-test-{width}", full_page=False)  # the dialog over the list's first rows
    page.keyboard.press("Escape")
    expect(page.locator("#new-test-dialog")).to_have_count(0)
    open_admin(page, app_server.url, f"/admin/tests/{test.id}")
    expect(page.locator("#edit-rates")).to_be_visible()
    # Nothing wider than the screen.
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    shot(page, f"form-{width}")
    context.close()


def test_a_scheduled_test_starts_running_when_the_job_runs_and_is_stopped_and_resumed(page: Page, app_server, db):
    me = staff(db, roles.TEAM_OWNER)
    doc = json.loads(DEMO_SURVEY.read_text())
    doc.update(name=f"E2E schedule {uuid.uuid4().hex[:8]}", status="draft")
    test = import_test(db, doc)
    db.commit()
    when = (utcnow() + timedelta(minutes=3)).replace(second=0, microsecond=0)

    sign_in(page, app_server.url, me.email, STAFF_PASSWORD)
    open_admin(page, app_server.url, f"/admin/tests/{test.id}")
    expect(page.locator("#edit-test-name")).to_have_text(test.name)
    choose(page, "edit-status", "Scheduled")
    expect(page.locator("#edit-scheduled-date-error")).to_have_text("Choose the date when the test starts.")
    page.fill("#edit-scheduled-date", when.strftime("%Y-%m-%d"))
    page.fill("#edit-scheduled-time", when.strftime("%H:%M"))
    expect(page.locator("#edit-scheduled-time-error")).to_have_count(0)
    shot(page, "scheduled-1280")
    page.click("#edit-save")
    expect(page.get_by_text("Saved.")).to_be_visible()
    expect(page.locator("#edit-status-badge")).to_have_text("Scheduled")
    expect(page.locator("#edit-scheduled-at")).to_have_text(f"Starts {when.strftime('%Y-%m-%d %H:%M')} UTC")

    # The launch job's round, at the test's time (every worker runs one every 30 s).
    db.expire_all()
    assert launch_scheduled(session=db, now=when + timedelta(seconds=1)) == [test.id]
    db.commit()
    page.reload()
    expect(page.locator("#edit-status-badge")).to_have_text("Running")
    assert db.exec(
        select(AuditEntry).where(AuditEntry.action == "test.launch", AuditEntry.target_id == str(test.id))
    ).one()

    page.click("#edit-stop-resume")
    expect(page.locator("#edit-status-badge")).to_have_text("Stopped")
    expect(page.locator("#edit-stop-resume")).to_have_text("Resume test")
    page.click("#edit-stop-resume")
    expect(page.locator("#edit-status-badge")).to_have_text("Running")
    db.expire_all()
    assert db.get(Test, test.id).status == "running"
