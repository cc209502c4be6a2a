"""A super-admin at /admin/api-keys in Chromium: the form's messages under their fields, a key made with two scopes
and shown once (its value works against /api/v1 from outside the browser, and is nowhere on the page once the
dialog is closed), its last use in the list, revoking it after a confirmation (the same key is then refused); a team
owner is told the page is not theirs; axe at phone and desktop width."""

from __future__ import annotations

import os
import re
import uuid
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect
from sqlmodel import select

from portal.domain import api_keys as rules
from portal.domain.staff import roles
from portal.models import ApiKey
from tests.e2e.conftest import wait_for_hydration
from tests.e2e.helpers import sign_in
from tests.e2e.test_accessibility import assert_accessible
from tests.e2e.test_admin import STAFF_PASSWORD, open_admin, staff

WIDTHS = [375, 1280]
SHOWN_KEY = re.compile(r"^pk_[A-Za-z0-9_-]{40,}$")


def _shots(app_server) -> Path:
    return Path(os.environ.get("SHOTS_DIR") or app_server.log_path.parent)


def _scope(page: Page, scope: str):
    return page.get_by_role("checkbox", name=f"{rules.SCOPE_LABELS[scope]} ({scope})")


def _tick(page: Page, scope: str) -> None:
    """A scope ticked (the box is the state's: it shows ticked once the server has the choice)."""
    _scope(page, scope).click()
    expect(_scope(page, scope)).to_be_checked()


def _key_row(page: Page, name: str):
    return page.locator('[data-testid="api-key-row"]').filter(has_text=name)


def _call(app_server, key: str) -> httpx.Response:
    return httpx.get(f"{app_server.url}/api/v1/key", headers={"Authorization": f"Bearer {key}"}, timeout=30)


def test_a_super_admin_makes_a_key_sees_it_once_and_revokes_it(page: Page, app_server, db):
    base, name = app_server.url, f"Customer app {uuid.uuid4().hex[:6]}"
    admin = staff(db, roles.SUPER_ADMIN)
    sign_in(page, base, admin.email, STAFF_PASSWORD)
    open_admin(page, base, "/admin/api-keys")
    expect(page.locator(".admin-nav").get_by_role("link", name="API keys")).to_be_visible()
    expect(page.locator("#api-key-rate")).to_have_value(str(rules.DEFAULT_RATE_PER_MINUTE))

    # Nothing filled in: each message under its own field, nothing made.
    page.fill("#api-key-rate", "0")
    page.click("#api-key-create")
    expect(page.locator("#api-key-name-error")).to_have_text(rules.NAME_REQUIRED)
    expect(page.locator("#api-key-scopes-error")).to_have_text(rules.SCOPES_REQUIRED)
    expect(page.locator("#api-key-rate-error")).to_have_text(rules.RATE_INVALID)
    expect(page.locator("#api-key-name")).to_have_attribute("aria-invalid", "true")

    # A key with two scopes, made from the keyboard.
    page.fill("#api-key-name", name)
    _tick(page, "tests:read")
    _scope(page, "results:read").focus()
    page.keyboard.press("Space")
    expect(_scope(page, "results:read")).to_be_checked()
    page.fill("#api-key-rate", "120")
    page.locator("#api-key-rate").press("Enter")
    dialog = page.locator("#api-key-created")
    expect(dialog).to_be_visible()
    expect(page.locator("#api-key-created-title")).to_have_text(f"Your new key: {name}")
    expect(dialog).to_contain_text("it will not be shown again")
    key = _shown_key(page)
    expect(page.locator("#api-key-value")).to_be_focused()
    assert key.startswith(rules.KEY_PREFIX)
    page.click("#api-key-copy")
    expect(page.get_by_text("Key copied.")).to_be_visible()

    # The key works from outside, with its scopes and rate.
    answer = _call(app_server, key)
    assert answer.status_code == 200, answer.text
    assert answer.json()["scopes"] == ["tests:read", "results:read"]
    assert answer.json()["rate_per_minute"] == 120

    # Closed: the value is gone from the page (and the state never had it: reloading shows only the prefix).
    page.click("#api-key-created-done")
    expect(dialog).to_have_count(0)
    assert key not in page.content()
    page.reload()
    expect(page.locator("#admin-role")).to_be_visible()
    row = _key_row(page, name)
    expect(row).to_contain_text(f"{key[: rules.PREFIX_SHOWN]}…")
    expect(row).to_contain_text("tests:read, results:read")
    expect(row).to_contain_text("120/min")
    expect(row).to_contain_text(admin.email)
    expect(row).to_contain_text("Active")
    expect(row).not_to_contain_text("Never")  # it was used a moment ago
    assert key not in page.content()
    expect(page.locator("#api-key-name")).to_have_value("")  # the form starts again

    # Revoking asks first; Cancel keeps the key working.
    row.get_by_role("button", name=f"Revoke the key {name}").click()
    expect(page.locator("#api-key-revoke-title")).to_have_text(f"Revoke {name}?")
    page.click("#api-key-revoke-dismiss")
    expect(page.locator("#api-key-revoke")).to_have_count(0)
    assert _call(app_server, key).status_code == 200
    row.get_by_role("button", name=f"Revoke the key {name}").click()
    page.click("#api-key-revoke-confirm")
    expect(page.get_by_text("Key revoked. Requests made with it are refused from now on.")).to_be_visible()
    expect(row).to_contain_text("Revoked")
    expect(row.get_by_role("button", name=f"Revoke the key {name}")).to_have_count(0)

    refused = _call(app_server, key)
    assert refused.status_code == 401
    assert refused.json() == {"errors": [{"field": None, "message": rules.BAD_KEY}]}
    db.expire_all()
    stored = db.exec(select(ApiKey).where(ApiKey.name == name)).one()
    assert stored.revoked_by_id == admin.id and stored.key_hash != key and key not in str(stored.model_dump())


def _shown_key(page: Page) -> str:
    """The value the dialog shows, once the create event has written it there."""
    field = page.locator("#api-key-value")
    expect(field).to_have_value(SHOWN_KEY)
    return field.input_value()


def test_a_team_owner_is_told_the_page_is_not_theirs(page: Page, app_server, db):
    owner = staff(db, roles.TEAM_OWNER)
    sign_in(page, app_server.url, owner.email, STAFF_PASSWORD)
    open_admin(page, app_server.url, "/admin/api-keys")
    expect(page.locator("#admin-no-permission")).to_have_text("Your role does not include this page.")
    expect(page.locator(".admin-nav").get_by_role("link", name="API keys")).to_have_count(0)
    expect(page.locator("#api-key-form")).to_have_count(0)


@pytest.mark.parametrize("width", WIDTHS)
def test_the_api_keys_page_at_phone_and_desktop_width(browser: Browser, app_server, db, width: int):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(20000)
    page = wait_for_hydration(context.new_page())
    admin = staff(db, roles.SUPER_ADMIN)
    sign_in(page, app_server.url, admin.email, STAFF_PASSWORD)  # the helper looks for the desktop header
    page.set_viewport_size({"width": width, "height": 900})
    open_admin(page, app_server.url, "/admin/api-keys")
    page.fill("#api-key-name", f"Shot {width}")
    _tick(page, "reviews:read")
    page.click("#api-key-create")
    expect(page.locator("#api-key-created")).to_be_visible()
    _shown_key(page)
    assert_accessible(page, f"the new key's dialog at {width} px")
    page.screenshot(path=str(_shots(app_server) / f"admin-api-keys-dialog-{width}.png"))
    page.keyboard.press("Tab")  # from the key to 'Copy key', then 'Done'
    expect(page.locator("#api-key-copy")).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.locator("#api-key-created-done")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#api-key-created")).to_have_count(0)
    expect(_key_row(page, f"Shot {width}")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    page.click("#api-key-create")  # the messages, as a person sees them
    expect(page.locator("#api-key-name-error")).to_be_visible()
    assert_accessible(page, f"/admin/api-keys at {width} px")
    page.screenshot(path=str(_shots(app_server) / f"admin-api-keys-{width}.png"), full_page=True)
    context.close()
