"""Texts, opt-in (issue 38, item 2) in Chromium, against Twilio's stand-in that the app serves at /local-sms (no
SMS provider configured, loopback BASE_URL): a participant adds a mobile number on the notifications page, reads
the code on the stand-in's page of texts, types a wrong code (its message) and the right one, and chooses invites
as texts; staff invite them on the invite page and the invite arrives as a text with the test's link. Replying STOP
on the stand-in's page stops texts: the page says so. axe finds nothing at 375 and 1280 px; screenshots go to
$SCREENSHOT_DIR (or the test's tmp dir)."""

from __future__ import annotations

import os
import random
import re
import uuid
from pathlib import Path
from urllib.parse import quote

from playwright.sync_api import Browser, Page, expect
from sqlalchemy import text

from portal.domain import sms as rules
from portal.domain.staff import roles
from tests.e2e.helpers import sign_in
from tests.e2e.test_accessibility import assert_accessible
from tests.e2e.test_admin import STAFF_PASSWORD, open_admin, row, staff, table_search
from tests.e2e.test_admin_confirmations import own_test
from tests.support.factories import make_participant, unique_email
from tests.support.polling import polled

PASSWORD = "Correct-Horse-42!"
TEXT_INVITES = "Text: A new paid test is waiting for me"


def _shots(tmp_path: Path) -> Path:
    out = Path(os.environ.get("SCREENSHOT_DIR") or tmp_path)
    out.mkdir(parents=True, exist_ok=True)
    return out


def _texts(page: Page, base: str, number: str):
    """The stand-in's page of texts to `number`, newest first."""
    page.goto(f"{base}/local-sms?to={quote(number)}")
    return page.locator("#local-sms-texts .text-body")


def _newest_text_containing(page: Page, base: str, number: str, words: str) -> str:
    """The newest text to `number` once it holds `words`: the stand-in's page is plain HTML, read again until the
    portal's sender (every 2 s) has sent it."""

    def newest() -> str:
        bodies = _texts(page, base, number)
        return (bodies.first.text_content() or "") if bodies.count() else ""

    body = polled(newest, lambda b: words in b, timeout=30, every=0.5)
    assert words in body, f"no text to {number} with {words!r}"
    return body


def test_a_phone_confirmed_by_code_gets_the_next_invite_as_a_text_and_stop_stops_them(
    page: Page, browser: Browser, app_server, db, tmp_path
):
    base = app_server.url
    tag = uuid.uuid4().hex[:6]
    email = unique_email("sms")
    who = make_participant(
        db, email=email, password=PASSWORD, first_name="Tess", last_name=f"Panel{tag}", verified=True
    )
    db.execute(
        text("UPDATE participant_profile SET experience_levels = :levels, country = 'US' WHERE account_id = :id"),
        {"levels": '["senior"]', "id": who.id},
    )
    db.commit()
    number = f"+1415555{random.randint(100, 199):04d}"
    shown = f"+1 415-555-{number[-4:]}"

    page.set_viewport_size({"width": 1280, "height": 900})
    sign_in(page, base, email, PASSWORD, path="/notifications")
    texts_card = page.locator("#texts")
    expect(texts_card.get_by_role("heading", name="Text messages")).to_be_visible()
    expect(page.get_by_role("switch", name=TEXT_INVITES)).to_be_disabled()
    assert_accessible(page, "the notifications page with texts")

    page.get_by_label("Mobile number").fill("415 555 0100")
    page.get_by_role("button", name="Send code").click()
    expect(page.locator("#sms-phone-error")).to_have_text(rules.PHONE_INVALID)

    page.get_by_label("Mobile number").fill(number)
    page.get_by_role("button", name="Send code").click()
    expect(page.get_by_text(rules.CODE_SENT.format(phone=shown))).to_be_visible()
    expect(page.get_by_label("Code from the text")).to_be_visible()
    page.screenshot(path=str(_shots(tmp_path) / "sms-code-1280.png"), full_page=True)

    phone = browser.new_page()  # the phone: the stand-in's page of texts
    body = _newest_text_containing(phone, base, number, "your code is")
    code = re.search(r"\b(\d{6})\b", body).group(1)

    page.get_by_label("Code from the text").fill("000000" if code != "000000" else "111111")
    page.get_by_role("button", name="Confirm").click()
    expect(page.locator("#sms-code-error")).to_have_text(rules.CODE_WRONG)
    page.get_by_label("Code from the text").fill(code)
    page.get_by_role("button", name="Confirm").click()
    expect(page.locator("#sms-number")).to_have_text(f"Texts go to {shown}.")
    switch = page.get_by_role("switch", name=TEXT_INVITES)
    expect(switch).to_be_enabled()
    switch.click()
    expect(page.get_by_text("Turned on: this comes as a text too.")).to_be_visible()
    expect(switch).to_be_checked()
    assert_accessible(page, "the notifications page, phone confirmed")
    page.screenshot(path=str(_shots(tmp_path) / "sms-confirmed-1280.png"), full_page=True)
    page.set_viewport_size({"width": 375, "height": 800})
    assert_accessible(page, "the notifications page at 375 px")
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    page.screenshot(path=str(_shots(tmp_path) / "sms-confirmed-375.png"), full_page=True)

    # Staff invite the participant on the invite page: the invite comes as a text with the test's link.
    test = own_test(db)
    manager = staff(db, roles.TEAM_MANAGER)
    desk = browser.new_page(viewport={"width": 1280, "height": 900})
    sign_in(desk, base, manager.email, STAFF_PASSWORD)
    open_admin(desk, base, f"/admin/tests/{test.id}/invite")
    table_search(desk, "invite-participants", f"Panel{tag}")
    row(desk, "invite-participants", who.id).get_by_role("checkbox").click()
    desk.click("#invite-send")
    desk.click("#invite-confirm-confirm")
    expect(desk.locator("#invite-result")).to_have_text("1 invite sent.")

    invite = _newest_text_containing(phone, base, number, "A new paid test for you")
    assert f"{base}/test/{test.id}/rate" in invite and invite.endswith("Reply STOP to stop texts.")
    assert _texts(phone, base, number).count() == 2  # the code and the invite, once each

    # The phone replies STOP on the stand-in's page: the portal says texts are stopped.
    phone.goto(f"{base}/local-sms?to={quote(number)}")
    phone.get_by_label("Text").fill("STOP")
    phone.get_by_role("button", name="Send reply").click()
    expect(phone.locator("#local-sms-texts")).to_contain_text(f"From {number} (a reply)")
    page.set_viewport_size({"width": 1280, "height": 900})
    page.reload()
    expect(page.locator("#sms-stopped")).to_have_text(rules.STOPPED)
    expect(page.get_by_role("switch", name=TEXT_INVITES)).to_be_disabled()
