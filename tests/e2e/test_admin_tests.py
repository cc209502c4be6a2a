"""Staff manage tests at /admin/tests in Chromium: a JSON file with two problems is refused with both
paths and nothing written, the fixed file creates the test, its export imports back with no change;
the edit form's live messages; and a running test stopped by staff shows its participants the
spec's access message."""

from __future__ import annotations

import copy
import json
import re
import uuid
from pathlib import Path

from playwright.sync_api import Browser, Page, expect
from sqlmodel import select

from portal.domain.staff import roles
from portal.domain.staff.editing import NOT_A_SUM
from portal.domain.taking.access import TEST_REMOVED, access_message
from portal.models import AuditEntry, Test
from portal.services.definition_import import import_test
from tests.e2e.helpers import sign_in
from tests.e2e.taking import invited
from tests.e2e.test_admin import STAFF_PASSWORD, open_admin, row, staff, table_search
from tests.e2e.test_survey import PASSWORD

# An upload goes to the server, is checked and stored before the dialog answers: more than expect()'s
# default 5 s on a busy 2-core machine.
UPLOAD_TIMEOUT_MS = 20000
DEMO_SURVEY = Path(__file__).resolve().parents[2] / "portal" / "data" / "demo_tests" / "01-survey.json"


def survey_document(name: str) -> dict:
    doc = json.loads(DEMO_SURVEY.read_text())
    doc["name"] = name
    return doc


def upload(page: Page, path: Path) -> None:
    page.set_input_files("#import-upload input[type=file]", str(path))


def test_import_refuses_two_problems_then_creates_and_the_export_imports_back_unchanged(
    page: Page, app_server, db, tmp_path
):
    me = staff(db, roles.TEAM_MANAGER)
    name = f"E2E import {uuid.uuid4().hex[:8]}"
    good = survey_document(name)
    bad = copy.deepcopy(good)
    bad["sessionSeconds"] = 1234
    bad["survey"]["questions"][0]["type"] = "dropdown"
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    (tmp_path / "good.json").write_text(json.dumps(good))

    (tmp_path / "huge.json").write_text(json.dumps({"name": name, "padding": "x" * (5 * 1024 * 1024)}))

    sign_in(page, app_server.url, me.email, STAFF_PASSWORD)
    open_admin(page, app_server.url, "/admin/tests")
    page.click("#tests-import")
    # A file over the limit is told in the dialog without being sent.
    upload(page, tmp_path / "huge.json")
    expect(page.locator("#import-refused")).to_contain_text("Choose a .json file of at most 5 MB")
    upload(page, tmp_path / "bad.json")
    problems = page.locator("#import-problems li")
    expect(problems).to_have_count(2, timeout=UPLOAD_TIMEOUT_MS)
    expect(problems.nth(0)).to_contain_text("sessionSeconds: must be one of")
    expect(problems.nth(1)).to_contain_text("survey.questions[0].type: ")
    expect(page.locator("#import-refused")).to_have_text("Nothing was imported: 2 problems to fix.")
    db.expire_all()
    assert db.exec(select(Test).where(Test.name == name)).first() is None

    upload(page, tmp_path / "good.json")
    expect(page.locator("#import-result")).to_contain_text(f"Created the test “{name}”.", timeout=UPLOAD_TIMEOUT_MS)
    expect(page.locator("#import-problems")).to_have_count(0)
    db.expire_all()
    test = db.exec(select(Test).where(Test.name == name)).one()
    page.click("#import-close")
    expect(page.get_by_role("dialog")).to_have_count(0)
    table_search(page, "admin-tests", name)
    expect(row(page, "admin-tests", test.id)).to_contain_text("Survey")
    expect(row(page, "admin-tests", test.id)).to_contain_text("Running")

    # Export from the test's page, then import the file: no change.
    row(page, "admin-tests", test.id).get_by_role("link", name=name).click()
    expect(page.locator("#edit-test-name")).to_have_text(name)
    with page.expect_download() as download:
        page.click("#edit-export")
    exported = tmp_path / "export.json"
    download.value.save_as(exported)
    assert json.loads(exported.read_text())["survey"] == good["survey"]
    updated_at = test.updated_at
    open_admin(page, app_server.url, "/admin/tests")
    page.click("#tests-import")
    upload(page, exported)
    expect(page.locator("#import-result")).to_contain_text(
        f"No change: “{name}” is already exactly this definition.", timeout=UPLOAD_TIMEOUT_MS
    )
    db.expire_all()
    assert db.get(Test, test.id).updated_at == updated_at
    assert len(db.exec(select(Test).where(Test.name == name)).all()) == 1


def test_a_running_test_stopped_by_staff_shows_participants_the_access_message(
    page: Page, browser: Browser, app_server, db
):
    test = import_test(db, survey_document(f"E2E stop {uuid.uuid4().hex[:8]}"))
    db.commit()
    participant = invited(db, test, 2500)
    me = staff(db, roles.TEAM_OWNER)

    sign_in(page, app_server.url, me.email, STAFF_PASSWORD)
    open_admin(page, app_server.url, f"/admin/tests/{test.id}")
    expect(page.locator("#edit-test-name")).to_have_text(test.name)
    # A live message for a bad payout; Save waits until it is fixed.
    page.fill("#edit-payout", "twenty")
    expect(page.locator("#edit-payout-error")).to_have_text(NOT_A_SUM)
    expect(page.locator("#edit-save")).to_be_disabled()
    page.fill("#edit-payout", "25")
    expect(page.locator("#edit-payout-error")).to_have_count(0)
    # A running test can be stopped or completed, never made a draft again.
    page.click("#edit-status")
    options = page.get_by_role("option")
    expect(options).to_have_text(["Running", "Stopped", "Completed"])
    options.filter(has_text="Stopped").click()
    expect(page.locator("#edit-dirty")).to_be_visible()
    page.click("#edit-save")
    expect(page.get_by_text("Saved.")).to_be_visible()
    expect(page.locator("#edit-status")).to_have_text("Stopped")
    page.click("#edit-status")
    expect(page.get_by_role("option")).to_have_text(["Stopped", "Running", "Completed", "Removed"])
    page.keyboard.press("Escape")
    db.expire_all()
    stopped = db.get(Test, test.id)
    assert (stopped.status, stopped.payout_cents) == ("stopped", 2500)
    entry = db.exec(
        select(AuditEntry).where(AuditEntry.target_id == str(test.id), AuditEntry.action == "test.edit")
    ).one()
    assert entry.after == {"payoutCents": 2500, "status": "stopped"} and entry.actor_id == me.id

    taker = browser.new_context(viewport={"width": 1280, "height": 900})
    taker.set_default_timeout(20000)
    other = taker.new_page()
    sign_in(other, app_server.url, participant.email, PASSWORD)
    other.goto(f"{app_server.url}/test/{test.id}/rate")
    message = access_message(TEST_REMOVED, test.id)
    expect(other.locator("#access-title")).to_have_text(message.title)
    expect(other.locator("#access-text")).to_have_text(message.text)
    expect(other).to_have_url(re.compile(rf"/test/{test.id}/rate"))
    taker.close()
