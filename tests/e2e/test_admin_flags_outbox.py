"""Staff at /admin/flags and /admin/outbox in Chromium: a super-admin turns the demo-product flag on for
one participant by override (that participant then gets the demo modal, another does not), sets a
percentage (150 is refused with the message), and reads both changes in the audit log; a team owner finds
an e-mail that failed by its address, reads its attempts and last error, and 'Retry now' sends it."""

from __future__ import annotations

import os
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from portal.domain.staff import roles
from portal.models import FeatureFlag, FeatureFlagUser, OutboxEmail
from portal.models._base import utcnow
from tests.e2e.conftest import wait_for_hydration
from tests.e2e.helpers import home_page_answered, sign_in
from tests.e2e.test_admin import STAFF_PASSWORD, open_admin, row, staff, table_search
from tests.e2e.test_profile import PASSWORD, _participant

FLAG = "demo-product"


def _shots(app_server) -> Path:
    return Path(os.environ.get("SHOTS_DIR") or app_server.log_path.parent)


def _new_page(browser: Browser, width: int = 1280) -> Page:
    context = browser.new_context(viewport={"width": width, "height": 900})
    context.set_default_timeout(20000)
    return wait_for_hydration(context.new_page())


def test_a_super_admin_turns_a_flag_on_for_one_participant_and_sets_a_percentage(
    page: Page, browser: Browser, app_server, db
):
    base = app_server.url
    admin = staff(db, roles.SUPER_ADMIN)
    chosen, other = _participant(db), _participant(db)
    card = f"#flag-{FLAG}"

    sign_in(page, base, admin.email, STAFF_PASSWORD)
    open_admin(page, base, "/admin/flags")
    expect(page.locator(".admin-nav").get_by_role("link", name="Flags")).to_be_visible()
    expect(page.locator(card)).to_contain_text("Demo product")
    expect(page.locator(f"{card}-summary")).to_have_text("Off for everyone")

    # An unknown e-mail is refused with a message under the field; nothing is stored.
    page.fill(f"{card}-override-email", "nobody-at-all@example.com")
    page.click(f"{card}-override-add")
    expect(page.locator(f"{card}-override-email-error")).to_have_text(
        "No account has the e-mail address nobody-at-all@example.com."
    )
    expect(page.locator(f"{card}-override-email")).to_have_value("nobody-at-all@example.com")  # kept to correct

    # The override for one participant.
    page.fill(f"{card}-override-email", chosen.email.upper())
    page.click(f"{card}-override-add")
    expect(page.get_by_text(f"Demo product is on for {chosen.email}.")).to_be_visible()
    override = page.locator(f'[data-testid="flag-{FLAG}-override"][data-email="{chosen.email}"]')
    expect(override).to_contain_text("On")
    expect(page.locator(f"{card}-override-email-error")).to_have_count(0)
    expect(page.locator(f"{card}-override-email")).to_have_value("")

    # The percentage: 150 is refused with the message, 40 is kept.
    page.fill(f"{card}-percentage", "150")
    page.click(f"{card}-percentage-save")
    expect(page.locator(f"{card}-percentage-error")).to_have_text(
        "Enter the percentage as a whole number from 0 to 100."
    )
    db.expire_all()
    assert db.get(FeatureFlag, FLAG).percentage == 100
    page.fill(f"{card}-percentage", "40")
    page.click(f"{card}-percentage-save")
    expect(page.locator(f"{card}-percentage-error")).to_have_count(0)
    expect(page.get_by_text("Demo product: off for everyone.")).to_be_visible()
    expect(page.locator(f"{card}-percentage")).to_have_value("40")
    db.expire_all()
    assert db.get(FeatureFlag, FLAG).percentage == 40
    assert db.get(FeatureFlagUser, (FLAG, chosen.id)).enabled is True

    # The chosen participant gets what the flag gates (the demo modal); the other does not.
    them = _new_page(browser)
    sign_in(them, base, chosen.email, PASSWORD)
    expect(them.locator("#demo-opt-in-title")).to_have_text("New way to engage: live meetings.")
    them.context.close()
    others = _new_page(browser)
    sign_in(others, base, other.email, PASSWORD)
    expect(others.locator("#welcome-name")).to_be_visible()
    home_page_answered(others)  # the page's load has been answered in full: a modal would show by now
    expect(others.locator("#demo-opt-in")).to_have_count(0)
    others.context.close()

    # Both changes are in the audit log, with before and after.
    open_admin(page, base, "/admin/audit")
    table_search(page, "admin-audit", FLAG)
    rows = page.locator('[data-testid="admin-audit-row"]')
    expect(rows.filter(has_text="Changed feature flag override").filter(has_text=chosen.email)).to_contain_text(
        "override: on"
    )
    expect(rows.filter(has_text="Changed feature flag").filter(has_text="percentage: 40")).to_contain_text(
        "percentage: 100"
    )

    # Removing the override.
    open_admin(page, base, "/admin/flags")
    override.get_by_role("button", name=f"Remove the override for {chosen.email}").click()
    expect(page.get_by_text("Override removed: the person follows the flag's setting again.")).to_be_visible()
    expect(override).to_have_count(0)
    db.expire_all()
    assert db.get(FeatureFlagUser, (FLAG, chosen.id)) is None
    page.fill(f"{card}-percentage", "100")  # as it was for the other tests
    page.click(f"{card}-percentage-save")
    expect(page.locator(f"{card}-summary")).to_have_text("Off for everyone")


def test_a_team_owner_finds_a_failing_email_and_retries_it(page: Page, app_server, db, smtp_server):
    base, tag = app_server.url, uuid.uuid4().hex[:8]
    owner = staff(db, roles.TEAM_OWNER)
    address, neighbour = f"outbox-{tag}@example.com", f"outbox-other-{tag}@example.com"
    later = utcnow() + timedelta(hours=2)
    failing = OutboxEmail(
        to_address=address,
        subject="Reset your password",
        kind="reset-password",
        body_text="Use https://portal.example/reset?token=NEVER-SHOWN",
        link="https://portal.example/reset?token=NEVER-SHOWN",
        attempts=3,
        last_error="Connection refused by mx.example.com",
        next_attempt_at=later,
    )
    waiting = OutboxEmail(
        to_address=neighbour,
        subject="Verify your e-mail",
        kind="verify-email",
        body_text="x",
        attempts=1,
        last_error="timed out",
        next_attempt_at=later,
    )
    db.add(failing)
    db.add(waiting)
    db.commit()

    sign_in(page, base, owner.email, STAFF_PASSWORD)
    open_admin(page, base, "/admin/outbox")
    expect(page.locator(".admin-nav").get_by_role("link", name="Outbox")).to_be_visible()
    expect(page.locator(".admin-nav").get_by_role("link", name="Flags")).to_have_count(0)  # super-admins only
    table_search(page, "admin-outbox", tag)
    expect(page.locator('[data-testid="admin-outbox-row"]')).to_have_count(2)
    table_search(page, "admin-outbox", f"outbox-{tag}")  # by address
    expect(page.locator('[data-testid="admin-outbox-row"]')).to_have_count(1)
    line = row(page, "admin-outbox", failing.id)
    for text_ in (address, "Reset your password", "Password reset", "Retrying", "Connection refused by mx.example.com"):
        expect(line).to_contain_text(text_)
    expect(line.locator("td").nth(2)).to_have_text("3")  # attempts
    expect(page.locator("#admin-outbox")).not_to_contain_text("NEVER-SHOWN")

    # The status filter.
    page.click("#admin-outbox-filters-toggle")
    page.click("#admin-outbox-filter-status-failed")
    page.click("#admin-outbox-filters-apply")
    expect(page.locator('[data-testid="admin-outbox-empty"]')).to_have_text("No matches found")
    page.click("#admin-outbox-filters-toggle")
    page.click("#admin-outbox-filter-status-failed")
    page.click("#admin-outbox-filter-status-retrying")
    page.click("#admin-outbox-filters-apply")
    expect(line).to_be_visible()

    # Retry now: due at once, so the sender delivers it.
    received = smtp_server.count_to(address)
    line.get_by_role("button", name="Retry now").click()
    expect(page.get_by_text("The e-mail is due now: the sender takes it in its next round.")).to_be_visible()
    mail = smtp_server.wait_for(address, subject_contains="Reset your password", after=received)
    assert mail.subject == "Reset your password"
    db.expire_all()
    sent = db.get(OutboxEmail, failing.id)
    assert sent.sent_at is not None and sent.last_error is None  # taken at once (its next try was two hours away)
    assert db.get(OutboxEmail, waiting.id).sent_at is None  # the other one still waits for its time
    page.click("#admin-outbox-filters-toggle")
    page.click("#admin-outbox-filters-reset")
    table_search(page, "admin-outbox", f"outbox-{tag}")
    expect(line).to_contain_text("Sent")
    expect(line.get_by_role("button", name="Retry now")).to_have_count(0)


@pytest.mark.parametrize("width", [1280, 375])
def test_flags_and_outbox_pages_at_desktop_and_phone_width(browser: Browser, app_server, db, width):
    page = _new_page(browser)
    admin = staff(db, roles.SUPER_ADMIN)
    db.add(
        OutboxEmail(
            to_address=f"shot-{uuid.uuid4().hex[:6]}@example.com",
            subject="Verify your e-mail",
            kind="verify-email",
            body_text="x",
            attempts=2,
            last_error="421 Service not available, try again later",
            next_attempt_at=utcnow() + timedelta(hours=1),
        )
    )
    db.commit()
    sign_in(page, app_server.url, admin.email, STAFF_PASSWORD)
    page.set_viewport_size({"width": width, "height": 900})
    for path in ("/admin/flags", "/admin/outbox"):
        open_admin(page, app_server.url, path)
        expect(page.locator("h1")).to_be_visible()
        expect(
            page.locator(
                f"#flag-{FLAG}-enabled" if path.endswith("flags") else '[data-testid="admin-outbox-row"]'
            ).first
        ).to_be_visible()
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
        page.screenshot(path=str(_shots(app_server) / f"admin{path.replace('/', '-')}-{width}.png"), full_page=True)
    # The keyboard reaches the switch, and Space turns it on and off.
    open_admin(page, app_server.url, "/admin/flags")
    switch = page.locator(f"#flag-{FLAG}-enabled")
    switch.focus()
    page.keyboard.press("Space")
    expect(page.get_by_text("Demo product is on.")).to_be_visible()
    expect(switch).to_have_attribute("aria-checked", "true")
    page.keyboard.press("Space")
    expect(page.get_by_text("Demo product is off.")).to_be_visible()
    expect(switch).to_have_attribute("aria-checked", "false")
    page.context.close()
