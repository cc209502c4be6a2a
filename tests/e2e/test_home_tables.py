"""Home (TESTS): the invites and rewards tables as the demo participant sees them in Chromium."""

from __future__ import annotations

import os
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

from playwright.sync_api import Page, expect
from sqlmodel import select

from portal.models import Account, Invite, Test
from tests.e2e.helpers import DEMO_EMAIL, DEMO_PASSWORD, sign_in
from tests.support.factories import make_participant

INVITE_ROWS = "[data-testid=invites-row]"
REWARD_ROWS = "[data-testid=rewards-row]"


def _demo_invites(db) -> dict[str, Invite]:
    account = db.exec(select(Account).where(Account.email == DEMO_EMAIL)).one()
    now = datetime.now(UTC)
    out: dict[str, Invite] = {}
    for invite in db.exec(select(Invite).where(Invite.account_id == account.id)):
        expires = invite.expires_at if invite.expires_at.tzinfo else invite.expires_at.replace(tzinfo=UTC)
        key = "expired-open" if invite.status == "open" and expires <= now else invite.status
        out.setdefault(key, invite)
    return out


def _row(page: Page, invite_id: int):
    return page.locator(f"{INVITE_ROWS}[data-row-id='{invite_id}']")


def test_both_tabs_with_counts_and_columns(page: Page, app_server):
    sign_in(page, app_server.url, DEMO_EMAIL, DEMO_PASSWORD)
    # Five open invites (survey, landing page, pricing test, two preference tests); a sixth is past its 24 hours.
    expect(page.get_by_role("tab", name="Invites (5)", exact=True)).to_be_visible()
    expect(page.locator(INVITE_ROWS)).to_have_count(13)
    header = page.locator("#invites thead")
    for label in ("Test ID", "Test", "Test type", "Invitation date", "Time left", "Payout", "Invite status"):
        expect(header).to_contain_text(label)
    expect(page.locator(INVITE_ROWS).first).to_have_attribute("data-strong", "true")  # the open one, newest first
    expect(page.locator(INVITE_ROWS).first).to_contain_text("Start test")
    expect(page.locator(INVITE_ROWS).first.locator("td[data-label='Invitation date']")).to_have_text(
        re.compile(r"^[A-Z][a-z]{2} \d{1,2}, \d{4}$")
    )
    # Each invite names its test, and an open one shows what is left of its 24 hours (issue 40).
    expect(page.locator(INVITE_ROWS).first.locator("td[data-label='Test']")).to_contain_text("Demo")
    expect(page.locator(INVITE_ROWS).first.locator("td[data-label='Time left']")).to_have_text(
        re.compile(r"^(\d{1,2} h )?\d{1,2} min left$")
    )
    expect(page.locator("#invites-pagination")).to_be_visible()  # 13 rows: more than the smallest page
    page.click("#tab-rewards")
    expect(page.locator(REWARD_ROWS)).to_have_count(4)
    rewards = page.locator("#rewards")
    for label in ("Test ID", "Test type", "Status", "Completion date", "Payout", "Payment status", "Payment date"):
        expect(rewards.locator("thead")).to_contain_text(label)
    for label in ("Paid", "Pending", "Failed", "Canceled"):
        expect(rewards.locator("tbody")).to_contain_text(label)
    expect(rewards.locator("tbody")).to_contain_text("Complete")


def test_sorting_by_invitation_and_completion_date(page: Page, app_server):
    sign_in(page, app_server.url, DEMO_EMAIL, DEMO_PASSWORD)
    first = page.locator(INVITE_ROWS).first
    expect(first).to_have_attribute("data-strong", "true")  # newest (the open invite) first by default
    newest_id = first.get_attribute("data-row-id")
    page.click("#invites-sort-createdOn")
    expect(page.locator("#invites-sort-createdOn")).to_have_attribute("data-direction", "ascending")
    expect(page.locator(INVITE_ROWS).last).to_have_attribute("data-row-id", newest_id)
    expect(page.locator(INVITE_ROWS).first).to_contain_text("Canceled")  # the oldest (12 days)

    page.click("#tab-rewards")
    first_reward = page.locator(REWARD_ROWS).first
    expect(first_reward).to_contain_text("Paid")  # newest completion (5 days ago) is the paid one
    page.click("#rewards-sort-createdOn")
    expect(page.locator("#rewards-sort-createdOn")).to_have_attribute("data-direction", "ascending")
    expect(page.locator(REWARD_ROWS).first).to_contain_text("Canceled")  # oldest completion (9 days)
    expect(page.locator(REWARD_ROWS).last).to_contain_text("Paid")


def test_paging_with_ten_per_page(page: Page, app_server, db):
    account = make_participant(db, first_name="Pat", last_name="Pager")
    test = db.exec(select(Test)).first()
    now = datetime.now(UTC)
    for i in range(23):
        created = now - timedelta(hours=30 + i)
        db.add(
            Invite(
                account_id=account.id,
                test_id=test.id,
                status="completed",
                amount_cents=2000,
                created_at=created,
                expires_at=created + timedelta(hours=24),
            )
        )
    db.commit()
    sign_in(page, app_server.url, account.email, "Correct-Horse-42!")
    expect(page.get_by_role("tab", name="Invites (0)", exact=True)).to_be_visible()
    expect(page.locator(INVITE_ROWS)).to_have_count(23)
    page.click("#invites-page-size")
    page.get_by_role("option", name="10", exact=True).click()
    expect(page.locator(INVITE_ROWS)).to_have_count(10)
    expect(page.locator("#invites-page")).to_have_text("Page 1 of 3")
    expect(page.locator("#invites-range")).to_have_text("1–10 of 23")
    page.click("#invites-next")
    expect(page.locator("#invites-page")).to_have_text("Page 2 of 3")
    page.click("#invites-next")
    expect(page.locator("#invites-page")).to_have_text("Page 3 of 3")
    expect(page.locator(INVITE_ROWS)).to_have_count(3)
    expect(page.locator("#invites-next")).to_be_disabled()
    page.click("#invites-prev")
    expect(page.locator(INVITE_ROWS)).to_have_count(10)
    # Rewards: none yet
    page.click("#tab-rewards")
    expect(page.locator("[data-testid=rewards-empty]")).to_contain_text("There are no items yet")


def test_search_without_match(page: Page, app_server):
    sign_in(page, app_server.url, DEMO_EMAIL, DEMO_PASSWORD)
    expect(page.locator(INVITE_ROWS)).to_have_count(13)
    page.fill("#invites-search", "no-such-test-anywhere")
    expect(page.locator("[data-testid=invites-empty]")).to_have_text("No matches found", timeout=10000)
    page.fill("#invites-search", "")
    expect(page.locator(INVITE_ROWS)).to_have_count(13, timeout=10000)


def test_open_invite_goes_to_its_test(page: Page, app_server, db):
    invites = _demo_invites(db)
    sign_in(page, app_server.url, DEMO_EMAIL, DEMO_PASSWORD)
    _row(page, invites["open"].id).get_by_role("button", name="Start test").click()
    expect(page).to_have_url(re.compile(rf"/test/{invites['open'].test_id}/rate/?$"))


def test_at_375_px_each_invite_is_a_card_with_its_start_button_on_screen(page: Page, app_server, db):
    """No sideways scrolling on a phone: every value sits under its column's name and 'Start test'
    is within the screen, and it opens the test."""
    invites = _demo_invites(db)
    sign_in(page, app_server.url, DEMO_EMAIL, DEMO_PASSWORD)
    page.set_viewport_size({"width": 375, "height": 800})
    expect(page.locator(INVITE_ROWS)).to_have_count(13)
    box = page.locator("#invites .dt-scroll")
    assert box.evaluate("el => el.scrollWidth <= el.clientWidth")
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    row = _row(page, invites["open"].id)
    expect(row.locator("td[data-label='Invite status']")).to_contain_text("Open")
    button = row.get_by_role("button", name="Start test")
    button.scroll_into_view_if_needed()
    edge = button.bounding_box()
    assert edge is not None and edge["x"] >= 0 and edge["x"] + edge["width"] <= 375
    # The sort control stays reachable above the cards.
    expect(page.locator("#invites-sort-createdOn")).to_be_visible()
    button.click()
    expect(page).to_have_url(re.compile(rf"/test/{invites['open'].test_id}/rate/?$"))


def test_expired_filled_and_completed_invites_say_why(page: Page, app_server, db):
    invites = _demo_invites(db)
    sign_in(page, app_server.url, DEMO_EMAIL, DEMO_PASSWORD)
    expired = _row(page, invites["expired-open"].id)
    expect(expired).to_contain_text("Expired")
    expect(expired).not_to_contain_text("Start test")
    expired.click()
    expect(page.get_by_text("This invite is no longer valid.")).to_be_visible()
    _row(page, invites["filled"].id).click()
    expect(page.get_by_text("This test has already been filled.")).to_be_visible()
    _row(page, invites["completed"].id).click()
    expect(page.get_by_text("This test has already been completed.")).to_be_visible()
    expect(page).to_have_url(re.compile(r"/$"))


def test_filters_panel_with_date_range_confirmation(page: Page, app_server):
    sign_in(page, app_server.url, DEMO_EMAIL, DEMO_PASSWORD)
    expect(page.locator(INVITE_ROWS)).to_have_count(13)
    page.click("#invites-filters-toggle")
    page.click("#invites-filter-status-open")
    page.click("#invites-filters-apply")
    expect(page.locator(INVITE_ROWS)).to_have_count(5)  # open and still within their 24 hours
    page.click("#invites-filters-toggle")
    page.click("#invites-filters-reset")
    expect(page.locator(INVITE_ROWS)).to_have_count(13)
    expect(page.locator("#invites-filters")).to_be_visible()  # reset keeps the panel open
    today = datetime.now(UTC).date()
    page.fill("#invites-range-from", (today - timedelta(days=4)).isoformat())
    page.fill("#invites-range-to", today.isoformat())
    page.locator("#invites-range-to").blur()
    page.click("#invites-filters-apply")
    expect(page.locator("#invites-range-question")).to_contain_text("Are you sure you want to use date range")
    page.click("#invites-use-range")
    expect(page.locator(INVITE_ROWS)).to_have_count(7)  # 1 h (four), 2 h, 30 h and 3 days old


def test_screenshots(page: Page, app_server):
    """Screenshots at 1280 and 375 px wide (kept when SCREENSHOT_DIR is set)."""
    out = Path(os.environ.get("SCREENSHOT_DIR", "/tmp/home-table-shots"))
    out.mkdir(parents=True, exist_ok=True)
    sign_in(page, app_server.url, DEMO_EMAIL, DEMO_PASSWORD)
    expect(page.locator(INVITE_ROWS)).to_have_count(13)
    page.screenshot(path=str(out / "home-1280.png"), full_page=True)
    page.click("#tab-rewards")
    expect(page.locator(REWARD_ROWS)).to_have_count(4)
    page.screenshot(path=str(out / "rewards-1280.png"), full_page=True)
    page.set_viewport_size({"width": 375, "height": 800})
    page.click("#tab-invites")
    page.screenshot(path=str(out / "home-375.png"), full_page=True)
    page.click("#invites-filters-toggle")
    expect(page.locator("#invites-filters")).to_be_visible()
    page.screenshot(path=str(out / "filters-375.png"), full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= 376  # rows are cards: nothing scrolls sideways
