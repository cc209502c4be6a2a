"""Versions in Chromium: a running landing-page test with a review and a participant in the middle of it.

Staff re-import it without its second highlight area: the import dialog says how many are taking it and
how many submitted, and imports it as version 2 only when staff confirm. An edit on the details page of
version 2, which nobody has started, needs no warning. The versions page lists both versions with their
counts and shows what changed; the old review still shows every question it answered, under its text.
Screenshots of the versions page at 1280 and 375 px.
"""

from __future__ import annotations

import json
import uuid

import pytest
from playwright.sync_api import Page, expect
from sqlmodel import select

from portal.domain.staff import roles
from portal.domain.taking.access import HIGHLIGHT_VIEW
from portal.models import Test, TestVersion
from portal.services.definition_import import import_test
from portal.services.taking import review_sessions as rs
from tests.e2e.helpers import animations_finished, sign_in
from tests.e2e.test_accessibility import assert_accessible
from tests.e2e.test_admin import STAFF_PASSWORD, open_admin, row, staff
from tests.e2e.test_admin_tests import UPLOAD_TIMEOUT_MS, upload
from tests.e2e.test_survey import shot
from tests.integration.test_highlight_submission import demo, landing_answers
from tests.support.factories import make_participant

REMOVED_QUESTION = "Which of these features matter to you?"


def a_test_in_use(db) -> tuple[Test, int, dict]:
    """The landing page under a name of its own, with one review and one participant in the middle."""
    document = {**demo("02-landing-page.json"), "name": f"Versions {uuid.uuid4().hex[:8]}"}
    test = import_test(db, document)
    db.commit()
    done, mid = make_participant(db), make_participant(db)
    for who in (done, mid):
        rs.start_session(session=db, test_id=test.id, account_id=who.id, view=HIGHLIGHT_VIEW)
        db.commit()
    review = rs.submit_review(
        session=db,
        test_id=test.id,
        account_id=done.id,
        answers=landing_answers(),
        worker_data={},
        submission_id="e2e-versions",
        view=HIGHLIGHT_VIEW,
    )
    db.commit()
    return test, review.review_id, document


def numbers(db, test_id: int) -> list[int]:
    db.expire_all()
    return list(db.exec(select(TestVersion.number).where(TestVersion.test_id == test_id).order_by(TestVersion.number)))


def test_a_re_import_of_a_test_in_use_asks_first_and_every_version_stays_readable(page: Page, app_server, db, tmp_path):
    me = staff(db, roles.TEAM_MANAGER)
    test, review_id, document = a_test_in_use(db)
    del document["selectedAreas"][1]
    (tmp_path / "fewer.json").write_text(json.dumps(document))

    sign_in(page, app_server.url, me.email, STAFF_PASSWORD)
    open_admin(page, app_server.url, "/admin/tests")
    page.click("#tests-import")
    upload(page, tmp_path / "fewer.json")
    warning = page.locator("#import-version-warning")
    expect(warning).to_contain_text(
        "1 person is taking version 1 now and 1 review was submitted on it.", timeout=UPLOAD_TIMEOUT_MS
    )
    expect(warning).to_contain_text("Saving makes version 2")
    assert numbers(db, test.id) == [1]  # nothing written before staff confirm
    page.click("#import-new-version")
    expect(page.locator("#import-result")).to_contain_text(f"Updated the test “{test.name}”.")
    assert numbers(db, test.id) == [1, 2]
    page.click("#import-close")

    # Version 2 is not in use yet: an edit of the details page changes it in place, without a warning.
    open_admin(page, app_server.url, f"/admin/tests/{test.id}")
    frame = page.locator("#edit-frame")
    frame.fill("Imagine you choose analytics software for a team of ten.")
    frame.blur()
    expect(page.locator("#edit-dirty")).to_be_visible()
    page.click("#edit-save")
    expect(page.get_by_text("Saved.")).to_be_visible()
    expect(page.locator("#edit-new-version")).to_have_count(0)
    assert numbers(db, test.id) == [1, 2]

    page.click("#test-tab-versions")
    table = page.locator("#versions-table")
    expect(table.locator("#version-2")).to_contain_text("Imported file")
    expect(table.locator("#version-1")).to_contain_text("In use")
    changes = page.locator("#versions-changes")
    expect(changes).to_contain_text("selectedAreas[1]")
    expect(changes).to_contain_text(REMOVED_QUESTION)
    expect(changes).to_contain_text("frameOfMind")

    # The review given on version 1 shows every question it answered, the removed area's too.
    open_admin(page, app_server.url, f"/admin/reviews?test={test.id}")
    row(page, "admin-reviews", review_id).get_by_role("button", name="Open").click()
    dialog = page.get_by_role("dialog")
    expect(dialog.locator("#review-version")).to_have_text(" (version 1)")
    expect(dialog).to_contain_text(REMOVED_QUESTION)
    expect(dialog).not_to_contain_text("highlight-2.")


@pytest.mark.parametrize("width", [1280, 375])
def test_the_versions_page_at_phone_and_desktop_width(page: Page, app_server, db, width):
    me = staff(db, roles.TEAM_MANAGER)
    test, _review_id, _document = a_test_in_use(db)
    edited = db.get(Test, test.id)
    edited.frame_of_mind = "A second version: a new frame of mind for everyone who starts from now on."
    db.add(edited)
    db.commit()
    sign_in(page, app_server.url, me.email, STAFF_PASSWORD)  # the helper looks for the desktop header
    page.set_viewport_size({"width": width, "height": 900})
    open_admin(page, app_server.url, f"/admin/tests/{test.id}/versions")
    expect(page.locator("#versions-table #version-2")).to_be_visible()
    expect(page.locator("#versions-changes")).to_contain_text("A second version")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    assert_accessible(page, f"the versions page at {width} px")
    shot(page, f"admin-versions-{width}")


def test_the_new_version_warning_on_the_details_page(page: Page, app_server, db):
    """An edit of what a test in use asks: the dialog says how many are taking it and submitted, Keep editing
    writes nothing, Save as version 2 makes it; the dialog passes axe."""
    me = staff(db, roles.TEAM_OWNER)
    test, _review_id, _document = a_test_in_use(db)
    sign_in(page, app_server.url, me.email, STAFF_PASSWORD)
    open_admin(page, app_server.url, f"/admin/tests/{test.id}")
    frame = page.locator("#edit-frame")
    frame.fill("Imagine your team has just doubled in size.")
    frame.blur()
    page.click("#edit-save")
    dialog = page.locator("#edit-new-version")
    expect(dialog).to_contain_text("1 person is taking version 1 now and 1 review was submitted on it.")
    animations_finished(page, "#edit-new-version")  # axe reads colours: not halfway through the fade-in
    assert_accessible(page, "the new-version warning")
    page.click("#edit-new-version-dismiss")
    expect(dialog).to_have_count(0)
    assert numbers(db, test.id) == [1]
    page.click("#edit-save")
    page.click("#edit-new-version-confirm")
    expect(page.get_by_text("Saved.")).to_be_visible()
    assert numbers(db, test.id) == [1, 2]
