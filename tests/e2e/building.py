"""What staff do to make a test in the browser, from nothing to a review read, in one place for the browser tests of
every kind (issue 34): sign in as staff, 'New test', the Build tab, save, preview, launch, invite one participant from
the invite page, the participant takes the test in a browser of their own, and the review page shows each answer under
its question. Each step waits for what a person sees."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from playwright.sync_api import Browser, Locator, Page, expect
from sqlalchemy import text
from sqlmodel import select

from portal.domain.staff import roles
from portal.models import Account, Review, Test
from tests.e2e.helpers import animations_finished, sign_in
from tests.e2e.test_admin import STAFF_PASSWORD, open_admin, table_search
from tests.e2e.test_admin import staff as make_staff
from tests.e2e.test_survey import PASSWORD
from tests.support.factories import make_participant


def sign_in_staff(page: Page, base: str, db, role: str = roles.TEAM_OWNER) -> Account:
    """A new staff account of `role`, signed in on `page`."""
    me = make_staff(db, role)
    sign_in(page, base, me.email, STAFF_PASSWORD)
    return me


def unique_name(prefix: str) -> str:
    return f"{prefix} {uuid.uuid4().hex[:8]}"


def typed(page: Page, selector: str, value: str) -> None:
    """Type into a field and leave it (the builder's fields send when typing pauses and on blur)."""
    page.fill(selector, value)
    page.locator(selector).press("Tab")
    expect(page.locator(selector)).to_have_value(value)


def choose(page: Page, trigger: str, label: str) -> None:
    """Pick `label` in a (Radix) select opened by `trigger`."""
    page.click(trigger)
    page.get_by_role("option", name=label, exact=True).click()
    expect(page.locator(trigger)).to_have_text(label)


def new_test(page: Page, base: str, name: str, product_type: str) -> int:
    """'New test' on the tests list: a draft named `name` of `product_type` (its label in the menu, such as
    'Survey · Survey'); the test's page opens. Returns the new test's id."""
    open_admin(page, base, "/admin/tests")
    page.click("#tests-new")
    expect(page.locator("#new-test-dialog").get_by_role("heading", name="New test")).to_be_visible()
    animations_finished(page, "#new-test-dialog")
    page.fill("#new-test-name", name)
    expect(page.locator("#new-test-name")).to_have_value(name)
    choose(page, "#new-test-type", product_type)
    page.click("#new-test-create")
    expect(page).to_have_url(re.compile(r"/admin/tests/\d+$"))
    expect(page.locator("#edit-test-name")).to_have_text(name)
    expect(page.locator("#edit-status-badge")).to_have_text("Draft")
    return int(page.url.rstrip("/").rsplit("/", 1)[1])


def open_build_tab(page: Page, name: str) -> None:
    """The Build tab of the test whose page is open."""
    page.click("#test-tab-build")
    expect(page.locator("#test-tab-build")).to_have_attribute("aria-current", "page")
    expect(page.locator("#builder-test-name")).to_have_text(name)


def no_problems(page: Page) -> None:
    expect(page.locator("#builder-status")).to_have_text("No problems")


def save_build(page: Page) -> None:
    """'Save changes' in the builder, with no problem left: the page says it is saved."""
    no_problems(page)
    page.click("#builder-save")
    expect(page.locator("#builder-saved")).to_be_visible()
    expect(page.locator("#builder-save")).to_be_disabled()


def preview_draft(page: Page) -> None:
    """'Preview draft' from the builder: the preview of the builder's copy opens."""
    page.click("#builder-preview")
    expect(page.locator("#preview-marker")).to_have_text("Preview of the draft")


def preview_saved(page: Page, base: str, test_id: int, name: str) -> None:
    """The test's Preview tab: the saved test, as a participant would see it."""
    open_admin(page, base, f"/admin/tests/{test_id}")
    page.click("#test-tab-preview")
    expect(page.locator("#preview-marker")).to_have_text("Preview")
    expect(page.locator("#preview-test-name")).to_have_text(name)


def launch(page: Page, base: str, test_id: int) -> None:
    """Status 'Running' on the test's page, saved: the badge says Running."""
    open_admin(page, base, f"/admin/tests/{test_id}")
    expect(page.locator("#edit-status-badge")).to_have_text("Draft")
    expect(page.locator("#edit-content-problems")).to_have_count(0)
    choose(page, "#edit-status", "Running")
    expect(page.locator("#edit-status-error")).to_have_count(0)
    page.click("#edit-save")
    expect(page.locator("#edit-status-badge")).to_have_text("Running")
    expect(page.locator("#edit-dirty")).to_have_count(0)


def panelist(db, tag: str) -> Account:
    """A verified participant (sign-up finished, password PASSWORD), senior, in the United States (a new test's
    audience country), whose last name is `tag`: the one person the invite page's search finds."""
    account = make_participant(db, password=PASSWORD, first_name="Robin", last_name=tag)
    db.execute(
        text(
            "UPDATE participant_profile SET experience_levels = :levels, job_title = 'Head of Data', country = 'US' "
            "WHERE account_id = :id"
        ),
        {"levels": '["senior"]', "id": account.id},
    )
    db.commit()
    return account


def invite_one(page: Page, base: str, test_id: int, tag: str) -> None:
    """From the test's Invite tab: the search finds one person (`tag`), who is sent an invite."""
    open_admin(page, base, f"/admin/tests/{test_id}")
    page.click("#test-tab-invite")
    expect(page).to_have_url(re.compile(rf"/admin/tests/{test_id}/invite"))
    table_search(page, "invite-participants", tag)
    expect(page.locator("#invite-matched")).to_have_text("1")
    expect(page.locator("#invite-to-invite")).to_have_text("1")
    page.click("#invite-send")
    page.click("#invite-confirm-confirm")
    expect(page.locator("#invite-result")).to_have_text(re.compile(r"^1 invite sent"))
    expect(page.locator("#invite-already-invited")).to_have_text("1")


@contextmanager
def participant(browser: Browser, base: str, account: Account) -> Iterator[Page]:
    """The participant, signed in in a browser of their own; leaving a test while its time runs is accepted."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(20000)
    try:
        page = context.new_page()
        page.on("dialog", lambda dialog: dialog.accept())
        sign_in(page, base, account.email, PASSWORD)
        yield page
    finally:
        context.close()


def open_review(page: Page, base: str, test_id: int, email: str) -> Locator:
    """The test's reviews (/admin/reviews?test=ID), the participant's opened: its answers."""
    open_admin(page, base, f"/admin/reviews?test={test_id}")
    table_search(page, "admin-reviews", email)
    review_row = page.locator('[data-testid="admin-reviews-row"]')
    expect(review_row).to_have_count(1)
    expect(review_row).to_contain_text("Submitted")
    review_row.get_by_role("button", name="Open").click()
    answers = page.locator("#review-answers")
    expect(answers).to_be_visible()
    return answers


def answer_under(answers: Locator, question: str, answer: str) -> None:
    """The review shows `answer` under `question` (the question's text, as the participant read it)."""
    box = answers.locator(".admin-answer").filter(has=answers.page.get_by_text(question, exact=True))
    expect(box).to_have_count(1)
    expect(box).to_contain_text(answer)


def the_review(db, test_id: int, account_id: int) -> Review:
    db.expire_all()
    return db.exec(select(Review).where(Review.test_id == test_id, Review.account_id == account_id)).one()


def saved_test(db, test_id: int) -> Test:
    db.expire_all()
    found = db.get(Test, test_id)
    assert found is not None
    return found


SHOTS = Path("/work/shots")


def builder_shots(page: Page, name: str) -> None:
    """The builder at 1280 and 375 px from the top of the page, as /work/shots/<name>-<width>.png (when that
    folder exists); nothing is wider than the screen."""
    for width in (1280, 375):
        page.set_viewport_size({"width": width, "height": 900})
        page.evaluate("window.scrollTo(0, 0)")
        expect(page.locator("#builder-status")).to_be_in_viewport()
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1"), f"{name} at {width}"
        if SHOTS.is_dir():
            page.screenshot(path=str(SHOTS / f"{name}-{width}.png"), full_page=True)
    page.set_viewport_size({"width": 1280, "height": 900})


STORED_IMAGE = re.compile(r"^/media/images/[0-9a-f]{64}\.png$")  # content-addressed, served by the portal


def upload_images(page: Page, slots: dict[str, bytes]) -> dict[str, str]:
    """On the test's Images tab (open from any of its pages): each slot ('screenshot', 'concept-1', ...) given its
    PNG; returns the address each was kept at."""
    page.click("#test-tab-images")
    expect(page.locator("#test-tab-images")).to_have_attribute("aria-current", "page")
    kept = {}
    for slot, data in slots.items():
        page.set_input_files(
            f"#upload-{slot} input[type=file]", files=[{"name": f"{slot}.png", "mimeType": "image/png", "buffer": data}]
        )
        image = page.locator(f"img#image-{slot}")
        expect(image).to_have_attribute("src", STORED_IMAGE)
        expect(page.locator(f"#upload-{slot}-error")).to_have_text("")
        kept[slot] = image.get_attribute("src") or ""
    return kept
