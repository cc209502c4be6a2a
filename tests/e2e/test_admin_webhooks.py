"""/admin/webhooks in Chromium (issue 39): a super-admin finds a delivery the sender gave up on (its status, attempts
and the receiver's last answer), clicks Replay, and the app's own sender posts the same event id again to a real
Standard Webhooks receiver on loopback, which verifies its signature; the log then shows it delivered, one attempt
more. The page has no accessibility violation."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

from playwright.sync_api import Page, expect
from sqlmodel import Session

from portal.domain.staff import roles
from portal.models import WebhookDelivery, WebhookSubscription
from portal.models._base import utcnow
from portal.services import webhooks
from portal.services.admin import api_keys
from tests.e2e.helpers import sign_in
from tests.e2e.test_accessibility import assert_accessible
from tests.e2e.test_admin import STAFF_PASSWORD, open_admin, row, staff, table_search
from tests.support import two_factor
from tests.support.polling import polled
from tests.support.webhook_receiver import WebhookReceiver

DATA = {"review_id": 12, "status": "approved"}


def given_up_delivery(db: Session, url: str, secret: str, tag: str) -> WebhookDelivery:
    """A key's subscription to `url` and one event the sender gave up on (nine attempts, the last answered 503)."""
    owner = staff(db, roles.SUPER_ADMIN)
    made = api_keys.create_key(db, actor_id=owner.id, name=f"Hooks {tag}", scopes=["webhooks:write"])
    subscription = WebhookSubscription(
        api_key_id=made.id,
        url=url,
        events=["review.decided"],
        secret=webhooks.seal(secret, secret_key=two_factor.APP_SECRET_KEY),  # sealed as the app seals it
    )
    db.add(subscription)
    db.flush()
    now = utcnow()
    delivery = WebhookDelivery(
        subscription_id=subscription.id,
        event_id=f"msg_{tag}",
        event_type="review.decided",
        payload={
            "type": "review.decided",
            "timestamp": now.isoformat(),
            "data": {"review_id": 12, "status": "approved"},
        },
        attempts=9,
        given_up_at=now,
        last_status=503,
        last_error=f"HTTP 503: receiver {tag} down for maintenance",
    )
    db.add(delivery)
    db.commit()
    return delivery


def test_a_super_admin_replays_a_given_up_delivery_and_the_receiver_gets_the_same_event(page: Page, app_server, db):
    base = app_server.url
    tag = uuid.uuid4().hex[:10]
    secret = "whsec_" + "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    with WebhookReceiver(path=f"/hooks/{tag}") as receiver:
        receiver.secret = secret
        delivery = given_up_delivery(db, receiver.url, secret, tag)
        admin = staff(db, roles.SUPER_ADMIN)

        sign_in(page, base, admin.email, STAFF_PASSWORD)
        open_admin(page, base, "/admin/webhooks")
        expect(page.locator(".admin-nav").get_by_role("link", name="Webhooks")).to_be_visible()
        table_search(page, "admin-webhooks", tag)
        line = row(page, "admin-webhooks", delivery.id)
        for text_ in ("review.decided", f"msg_{tag}", "Given up", "503", f"receiver {tag} down", receiver.url):
            expect(line).to_contain_text(text_)
        expect(line.locator("td").nth(2)).to_have_text("9")  # attempts
        assert_accessible(page, "/admin/webhooks")

        line.get_by_role("button", name="Replay").click()
        expect(page.get_by_text("The event is due again now")).to_be_visible()
        arrived = polled(lambda: dict(receiver.arrivals), lambda seen: f"msg_{tag}" in seen, timeout=30)
        assert arrived == {f"msg_{tag}": 1}, receiver.refused  # verified by its signature, the same event id
        assert receiver.events[f"msg_{tag}"]["data"] == DATA

        def read() -> WebhookDelivery:
            db.expire_all()
            return db.get(WebhookDelivery, delivery.id)

        done = polled(read, lambda d: d.delivered_at is not None, timeout=10)
        assert done.attempts == 10
        page.reload()
        expect(page.locator("#admin-role")).to_be_visible()
        table_search(page, "admin-webhooks", tag)
        expect(line).to_contain_text("Delivered")
        expect(line.locator("td").nth(2)).to_have_text("10")
        assert_accessible(page, "/admin/webhooks after the replay")
        shots = Path(os.environ.get("SCREENSHOT_DIR", "/tmp/webhook-shots"))
        shots.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(shots / "admin-webhooks-1280.png"), full_page=True)
        page.set_viewport_size({"width": 375, "height": 900})
        expect(line).to_contain_text("Delivered")
        assert_accessible(page, "/admin/webhooks at 375 px")
        page.screenshot(path=str(shots / "admin-webhooks-375.png"), full_page=True)
