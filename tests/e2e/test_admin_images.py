"""Test images in Chromium (issue 16, item 4): staff upload a highlight test's page screenshot 500 px wide
(refused with the spec's message, nothing changes) and one 1400 px wide (kept and shown, with a
progress bar while it is sent), and a concept image of a preference test (600 px and not-an-image
refused, 1200 px kept)."""

from __future__ import annotations

import io
import os
import re

import pytest
from PIL import Image
from playwright.sync_api import Page, expect
from sqlmodel import select

from portal.domain import images as rules
from portal.models import AuditEntry, Test
from tests.e2e.helpers import sign_in
from tests.e2e.test_admin import STAFF_PASSWORD, open_admin, staff
from tests.e2e.test_survey import shot
from tests.support.images import png
from tests.support.people import demo_test

STORED = re.compile(r"^/media/images/[0-9a-f]{64}\.png$")  # content-addressed, served by the portal


def refused(status: int, slot: str) -> str:
    """Chromium's console line for an upload the server refuses on purpose (the page shows why)."""
    return rf"Failed to load resource: the server responded with a status of {status} \(.*\) \[https?://[^/\]]+/api/admin/tests/\d+/images/{slot}\]"


def choose(page: Page, slot: str, name: str, data: bytes) -> None:
    page.set_input_files(
        f"#upload-{slot} input[type=file]", files=[{"name": name, "mimeType": "image/png", "buffer": data}]
    )


def current(db, test_id: int) -> Test:
    db.expire_all()
    return db.get(Test, test_id)


def audited(db, test_id: int) -> list[AuditEntry]:
    db.expire_all()
    return list(
        db.exec(select(AuditEntry).where(AuditEntry.action == "test.image", AuditEntry.target_id == str(test_id)))
    )


def noisy_png(width: int, height: int) -> bytes:
    """A PNG that does not compress (a few MB), so sending it takes a moment on a slowed network."""
    out = io.BytesIO()
    Image.frombytes("RGB", (width, height), os.urandom(width * height * 3)).save(out, "PNG", compress_level=0)
    return out.getvalue()


@pytest.mark.allow_console_errors(refused(422, "screenshot"))
def test_a_screenshot_too_narrow_is_refused_and_a_wide_one_is_kept(page: Page, app_server, db):
    base = app_server.url
    me = staff(db, "team-manager")
    test = demo_test(db, "02-landing-page.json")
    original = test.screenshot_url
    sign_in(page, base, me.email, STAFF_PASSWORD)
    open_admin(page, base, f"/admin/tests/{test.id}/images")
    expect(page.locator("#test-tab-images")).to_have_attribute("aria-current", "page")
    box = page.locator("#upload-screenshot")
    expect(box).to_contain_text("Page screenshot")
    expect(page.locator("#upload-pricing-screenshot")).to_have_count(0)  # a landing-page test has no pricing page
    expect(page.locator("img#image-screenshot")).to_have_attribute("src", original)

    choose(page, "screenshot", "narrow.png", png(500))
    expect(page.locator("#upload-screenshot-error")).to_have_text(
        "The image must be wider than 600 px (this one is 500 px)."
    )
    expect(page.locator("img#image-screenshot")).to_have_attribute("src", original)
    assert current(db, test.id).screenshot_url == original and audited(db, test.id) == []

    # The wide one, on a slowed network: the progress bar shows while it is sent, then the image.
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": 20, "downloadThroughput": -1, "uploadThroughput": 2 * 1024 * 1024},
    )
    wide = noisy_png(1400, 1000)
    choose(page, "screenshot", "wide.png", wide)
    expect(page.locator("#upload-screenshot-progress")).to_be_visible()
    expect(page.locator("#upload-screenshot-progress")).to_have_count(0, timeout=30000)
    cdp.send(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1},
    )
    expect(page.locator("#upload-screenshot-error")).to_have_text("")
    image = page.locator("img#image-screenshot")
    expect(image).to_have_attribute("src", STORED)
    kept = current(db, test.id).screenshot_url
    assert kept == image.get_attribute("src") and kept != original
    page.wait_for_function("document.querySelector('img#image-screenshot').naturalWidth === 1400")
    [entry] = audited(db, test.id)
    assert entry.actor_id == me.id and entry.before == {"screenshot": original} and entry.after == {"screenshot": kept}

    # After a reload the page shows what the server kept.
    page.reload()
    expect(page.locator("img#image-screenshot")).to_have_attribute("src", kept)


@pytest.mark.allow_console_errors(refused(422, "concept-2"), refused(415, "concept-2"))
def test_a_concept_image_of_a_preference_test(page: Page, app_server, db):
    base = app_server.url
    me = staff(db, "super-admin")
    test = demo_test(db, "04-preference-image.json")
    before = [image["url"] for image in test.preference_test["images"]]
    sign_in(page, base, me.email, STAFF_PASSWORD)
    open_admin(page, base, f"/admin/tests/{test.id}/images")
    expect(page.locator("#upload-concept-1")).to_contain_text("Concept 1")
    expect(page.locator("#upload-concept-3")).to_be_visible()
    expect(page.locator("#upload-screenshot")).to_have_count(0)  # a preference test shows no page

    choose(page, "concept-2", "tiny.png", png(600))  # 600 px is not wider than 600 px
    expect(page.locator("#upload-concept-2-error")).to_have_text(
        "The image must be wider than 600 px (this one is 600 px)."
    )
    choose(page, "concept-2", "notes.png", b"these are notes, not a picture")
    expect(page.locator("#upload-concept-2-error")).to_have_text("This file is not an image (PNG, JPEG, WebP or GIF).")
    assert [image["url"] for image in current(db, test.id).preference_test["images"]] == before

    choose(page, "concept-2", "concept-b.png", png(1200, 800, color=(200, 60, 60)))
    expect(page.locator("#upload-concept-2-error")).to_have_text("")
    expect(page.locator("img#image-concept-2")).to_have_attribute("src", STORED)
    after = [image["url"] for image in current(db, test.id).preference_test["images"]]
    assert (
        after[0] == before[0]
        and after[2] == before[2]
        and after[1] == page.locator("img#image-concept-2").get_attribute("src")
    )
    expect(page.locator("img#image-concept-1")).to_have_attribute("src", before[0])
    page.wait_for_function("document.querySelector('img#image-concept-2').naturalWidth === 1200")


@pytest.mark.parametrize("width", [1280, 375])
@pytest.mark.allow_console_errors(refused(422, "pricing-screenshot"))
def test_the_images_page_fits_desktop_and_phone(page: Page, app_server, db, width):
    """A pricing test's two slots, one with a refusal showing; nothing wider than the screen."""
    me = staff(db, "team-owner")
    test = demo_test(db, "03-pricing.json")
    sign_in(page, app_server.url, me.email, STAFF_PASSWORD)
    page.set_viewport_size({"width": width, "height": 900})
    open_admin(page, app_server.url, f"/admin/tests/{test.id}/images")
    expect(page.locator("img#image-screenshot")).to_be_visible()
    expect(page.locator("img#image-pricing-screenshot")).to_be_visible()
    choose(page, "pricing-screenshot", "small.png", png(320, 240))
    expect(page.locator("#upload-pricing-screenshot-error")).to_have_text(rules.too_narrow(320))
    expect(page.get_by_label("Upload a new image").first).to_be_enabled()
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    shot(page, f"admin-images-{width}")
