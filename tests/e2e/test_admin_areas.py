"""The highlight-area editor in Chromium (issue 16's browser test): staff upload a screenshot 500 px wide
(refused with the message) and one 1400 px wide (kept), draw two areas on it with the mouse, resize one
with the keyboard, add a question to each (live messages until then) and save; the demo participant's
highlight test then shows both rectangles where they were drawn."""

from __future__ import annotations

import io
import uuid

import pytest
from PIL import Image, ImageDraw
from playwright.sync_api import Browser, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from sqlmodel import select

from portal.domain.staff import roles
from portal.models import AuditEntry, Test
from portal.models._base import utcnow
from tests.e2e.helpers import sign_in
from tests.e2e.taking import invited, named
from tests.e2e.test_admin import STAFF_PASSWORD, open_admin, staff
from tests.e2e.test_highlight import LANDING
from tests.e2e.test_survey import PASSWORD, shot

TOLERANCE = 0.6  # percent: rounding to 0.01 and sub-pixel layout


def png(width: int, height: int) -> bytes:
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    for i, color in enumerate(("#dbe4ff", "#d3f9d8", "#fff3bf")):
        draw.rectangle(
            [40, 40 + i * height // 3, width - 40, (i + 1) * height // 3 - 20], fill=color, outline="#868e96"
        )
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def upload(page: Page, name: str, data: bytes) -> None:
    page.set_input_files(
        "#upload-screenshot input[type=file]", files=[{"name": name, "mimeType": "image/png", "buffer": data}]
    )


def a_highlight_test(db) -> Test:
    demo = named(db, LANDING)
    test = Test(
        name=f"Areas {uuid.uuid4().hex[:8]}",
        status="running",
        panel=demo.panel,
        product_type="landing-page",
        url=demo.url,
        screenshot_url=None,
        questions=demo.questions,
        selected_areas=[],
        session_seconds=demo.session_seconds,
        payout_cents=demo.payout_cents,
        launched_at=utcnow(),
    )
    db.add(test)
    db.commit()
    return test


def drag(page: Page, box: dict, start: tuple[float, float], end: tuple[float, float]) -> tuple[float, ...]:
    """Drag on the screenshot from and to points given in percent; returns the box drawn, in percent."""
    x1, y1 = box["x"] + box["width"] * start[0] / 100, box["y"] + box["height"] * start[1] / 100
    x2, y2 = box["x"] + box["width"] * end[0] / 100, box["y"] + box["height"] * end[1] / 100
    page.mouse.move(x1, y1)
    page.mouse.down()
    page.mouse.move((x1 + x2) / 2, (y1 + y2) / 2, steps=4)
    page.mouse.move(x2, y2, steps=4)
    page.mouse.up()
    return (*start, *end)


# Each element of `boxes` as [x1, y1, x2, y2] in percent of `container`.
_PERCENT_BOXES = """([container, boxes]) => {
    const c = document.querySelector(container).getBoundingClientRect();
    return [...document.querySelectorAll(boxes)].map((el) => {
        const r = el.getBoundingClientRect();
        return [(r.left - c.left) / c.width * 100, (r.top - c.top) / c.height * 100,
                (r.right - c.left) / c.width * 100, (r.bottom - c.top) / c.height * 100];
    });
}"""


def percent_boxes(page: Page, container: str, boxes: str) -> list[tuple[float, ...]]:
    """Each element of `boxes` as [x1, y1, x2, y2] in percent of `container` (what a person sees)."""
    return page.evaluate(_PERCENT_BOXES, [container, boxes])


def boxes_once_at(page: Page, container: str, boxes: str, expected: list[tuple[float, ...]]) -> list[tuple[float, ...]]:
    """`percent_boxes` once they are drawn where `expected` says (within TOLERANCE), or as they are when
    the wait ends: the caller asserts on them."""
    try:
        page.wait_for_function(
            f"""([container, boxes, expected, tolerance]) => {{
                const found = ({_PERCENT_BOXES})([container, boxes]);
                return found.length === expected.length && found.every(
                    (box, i) => box.every((value, j) => Math.abs(value - expected[i][j]) <= tolerance));
            }}""",
            arg=[container, boxes, [list(box) for box in expected], TOLERANCE],
        )
    except PlaywrightTimeoutError:
        pass
    return percent_boxes(page, container, boxes)


def close_to(found, expected) -> bool:
    return len(found) == len(expected) and all(
        abs(a - b) <= TOLERANCE for f, e in zip(found, expected, strict=True) for a, b in zip(f, e, strict=True)
    )


def stored_boxes(test: Test) -> list[tuple[float, ...]]:
    return [(*a["from"], *a["to"]) for a in test.selected_areas]


# The refused upload answers 422, which Chromium logs as a failed resource.
@pytest.mark.allow_console_errors(r"status of 422 \(.*\) \[https?://[^/\]]+/api/admin/tests/\d+/images/screenshot\]")
def test_draw_resize_save_and_the_participant_sees_the_same_rectangles(page: Page, browser: Browser, app_server, db):
    base = app_server.url
    test = a_highlight_test(db)
    me = staff(db, roles.TEAM_MANAGER)
    sign_in(page, base, me.email, STAFF_PASSWORD)

    # The screenshot: 500 px wide is refused with the rule's message, 1400 px wide is kept.
    open_admin(page, base, f"/admin/tests/{test.id}/images")
    upload(page, "narrow.png", png(500, 400))
    expect(page.locator("#upload-screenshot-error")).to_contain_text("must be wider than 600 px (this one is 500 px)")
    db.expire_all()
    assert db.get(Test, test.id).screenshot_url is None
    upload(page, "wide.png", png(1400, 900))
    expect(page.locator("img#image-screenshot")).to_be_visible()
    expect(page.locator("#upload-screenshot-error")).to_have_text("")
    db.expire_all()
    screenshot = db.get(Test, test.id).screenshot_url
    assert screenshot

    # The editor: the keys are documented; two areas drawn with the mouse.
    open_admin(page, base, f"/admin/tests/{test.id}/areas")
    expect(page.locator("#test-tab-areas")).to_have_attribute("aria-current", "page")
    expect(page.locator("#areas-help")).to_contain_text("Shift + Right/Left arrow")
    expect(page.locator("#areas-empty")).to_be_visible()
    image = page.locator("#area-editor-image")
    expect(image).to_have_attribute("src", screenshot)
    page.wait_for_function("() => document.querySelector('#area-editor-image').naturalWidth === 1400")
    box = page.locator("#area-editor-surface").bounding_box()
    first = drag(page, box, (10, 8), (45, 30))
    expect(page.locator("#area-box-0")).to_be_visible()
    second = drag(page, box, (50, 52), (85, 78))
    expect(page.locator("#area-box-1")).to_be_visible()
    # Live messages: an area needs a question.
    expect(page.locator("#areas-problems")).to_contain_text("selectedAreas[0].questions")
    expect(page.locator("#areas-problems")).to_contain_text("selectedAreas[1].questions")
    expect(page.locator("#areas-save")).to_be_enabled()

    # 'Add an area' (the keyboard's way to draw one), moved up, deleted: the two drawn areas are left in order.
    page.click("#areas-add")
    expect(page.locator("#area-box-2")).to_be_visible()
    expect(page.locator("#area-2-place")).to_have_text("From 35%, 35% to 65%, 55%")
    page.click("#area-2-up")
    expect(page.locator("#area-1-place")).to_have_text("From 35%, 35% to 65%, 55%")
    page.click("#area-1-delete")
    expect(page.locator("#area-box-2")).to_have_count(0)
    expect(page.locator("#area-1-place")).not_to_have_text("From 35%, 35% to 65%, 55%")

    # The second area resized with the keyboard: 3 steps wider, 2 steps taller (1 % each).
    before = percent_boxes(page, "#area-editor-surface", "#area-box-1")[0]
    page.locator("#area-box-1").focus()
    expect(page.locator("#area-box-1")).to_have_attribute("aria-pressed", "true")
    for key in ("Shift+ArrowRight", "Shift+ArrowRight", "Shift+ArrowRight", "Shift+ArrowDown", "Shift+ArrowDown"):
        page.keyboard.press(key)
    expected_second = (before[0], before[1], before[2] + 3, before[3] + 2)
    after = boxes_once_at(page, "#area-editor-surface", "#area-box-1", [expected_second])
    assert close_to(after, [expected_second]), (after, expected_second)
    assert close_to([before], [second]), (before, second)

    # A question on each area; the messages go once every area has one with a text.
    page.click("#area-0-add-question")
    page.locator("#area-0-question-0-text").fill("What does this headline promise you?")
    page.click("#area-1-add-question")
    expect(page.locator("#areas-problems")).to_contain_text("selectedAreas[1].questions[0].text")
    page.locator("#area-1-question-0-text").fill("Would this section make you sign up?")
    expect(page.locator("#areas-problems")).to_have_count(0)
    expect(page.locator("#areas-ok")).to_have_text("No problems found: ready to save.")
    page.locator("#area-box-0").focus()  # the focus ring and the resize handles of the selected area
    shot(page, "admin-areas-1280")
    page.set_viewport_size({"width": 375, "height": 800})
    shot(page, "admin-areas-375")
    page.set_viewport_size({"width": 1280, "height": 900})
    page.click("#areas-save")
    expect(page.get_by_text("Highlight areas saved.")).to_be_visible()
    expect(page.locator("#areas-ok")).to_have_text("Saved.")

    db.expire_all()
    saved = db.get(Test, test.id)
    assert close_to(stored_boxes(saved), [first, expected_second]), stored_boxes(saved)
    assert [a["questions"][0]["text"] for a in saved.selected_areas] == [
        "What does this headline promise you?",
        "Would this section make you sign up?",
    ]
    assert db.exec(
        select(AuditEntry).where(AuditEntry.action == "test.areas", AuditEntry.target_id == str(test.id))
    ).one()

    # An invited participant's highlight test draws exactly these rectangles. (A new participant, not the
    # demo one: the home-table tests count the demo participant's invites.)
    participant = invited(db, test, 1500)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(20000)
    them = context.new_page()
    sign_in(them, base, participant.email, PASSWORD)
    them.goto(f"{base}/test/{test.id}/rate")
    them.click("#start-test")
    them.click("#precheck-confirm")
    them.click("#precheck-proceed")
    them.keyboard.press("Escape")  # the welcome modal
    expect(them.locator("#highlight-area-1")).to_be_visible()
    them.wait_for_function("() => document.querySelector('.highlight-shot img').complete")
    shown = percent_boxes(them, ".highlight-shot", ".highlight-area")
    assert close_to(shown, stored_boxes(saved)), (shown, stored_boxes(saved))
    shot(them, "admin-areas-participant")
    context.close()
