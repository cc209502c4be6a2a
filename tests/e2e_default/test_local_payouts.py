"""A fresh clone's `make run` pays through Tremendous's local stand-in: an order made through the SDK is
delivered by the portal's own delivery loop, its link e-mail shows in the stand-in's inbox
(/local-payouts/inbox), and the link opens the page where the recipient chooses how to take the reward.
Both pages say they are not Tremendous, fit 375 px and pass axe."""

from __future__ import annotations

import re
import uuid

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import BrowserContext, Page, expect

from portal.services.providers.payouts import build
from portal.settings import Settings
from tests.e2e.test_survey import shot
from tests.support.polling import polled

AXE = Axe()


def accessible(page: Page) -> None:
    results = AXE.run(page, options={"resultTypes": ["violations"]})
    assert results.violations_count == 0, f"{page.url}:\n{results.generate_report()}"


def fits_375(page: Page, name: str) -> None:
    page.set_viewport_size({"width": 375, "height": 800})
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    shot(page, f"{name}-375")
    page.set_viewport_size({"width": 1280, "height": 900})
    shot(page, f"{name}-1280")


def test_a_reward_is_delivered_to_the_inbox_and_its_link_lets_the_recipient_choose(
    context: BrowserContext, app_server, monkeypatch
):
    # The portal's own provider, as the server derives it (its SECRET_KEY and BASE_URL).
    monkeypatch.setenv("SECRET_KEY", app_server.env["SECRET_KEY"])
    monkeypatch.setenv("BASE_URL", app_server.url)
    for name in ("PAYOUT_PROVIDER", "TREMENDOUS_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    provider = build(Settings())
    email = f"ada.{uuid.uuid4().hex[:8]}@example.org"
    ordered = provider.order(
        external_id=f"E2E{uuid.uuid4().hex[:12].upper()}", amount_cents=2500, currency="USD", email=email, name="Ada"
    )
    assert ordered.state == "sent"

    page = context.new_page()  # the stand-in's plain pages, not the portal's (no '#portal-ready' to wait for)
    page.goto(f"{app_server.url}/local-payouts/inbox")
    expect(page.get_by_role("note")).to_contain_text("This is not Tremendous.")
    # Delivered by the portal's loop LOCAL_PAYOUTS_DELIVERY_SECONDS (8 here) after the order: one reloads the inbox.
    item = page.get_by_role("listitem").filter(has_text=email)

    def reloaded() -> int:
        page.reload()
        return item.count()

    polled(reloaded, bool, timeout=30, every=0.5)
    expect(item).to_contain_text("Delivered")
    accessible(page)
    fits_375(page, "local-payouts-inbox")

    item.get_by_role("link", name="Open the reward").click()
    expect(page).to_have_url(re.compile(rf"/local-payouts/rewards/{ordered.reward_id}$"))
    expect(page.get_by_role("heading", level=1)).to_have_text("Your reward: 25.00 USD")
    accessible(page)
    fits_375(page, "local-payouts-reward")
    page.get_by_label("PayPal").check()
    page.get_by_role("button", name="Redeem").click()
    expect(page.locator("#local-payouts-choice")).to_have_text("You chose: PayPal.")
    assert provider.reward(provider_reward_id=ordered.reward_id).state == "paid"
