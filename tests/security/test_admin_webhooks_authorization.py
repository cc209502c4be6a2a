"""The handlers of /admin/webhooks (issue 39), sent as raw websocket events by anonymous visitors, participants and
each staff role: only super-admins and team owners read the delivery log and replay a delivery (read from the
audit log and from the frames each tab received), in every cell of the matrix.

Each caller sends, in order, every public handler of the state (checked against the state itself below), on a
delivery made for that caller.
"""

from __future__ import annotations

import inspect
import uuid
from dataclasses import dataclass
from typing import Any

import pytest
from sqlmodel import Session, select

from portal.domain.staff import roles
from portal.models import AuditEntry, WebhookDelivery, WebhookSubscription
from portal.models._base import utcnow
from portal.services.admin import api_keys
from portal.states.admin.webhooks import AdminWebhooksState
from tests.security.test_admin_authorization import CALLERS, TABLE_READS, TABLE_VIEW_ONLY, caller
from tests.support.people import Person
from tests.support.raw_tab import RawTab, run

W = AdminWebhooksState.get_full_name()


@dataclass
class World:
    delivery_id: int
    url: str  # only the log shows it
    error: str  # the delivery's last error: only the log shows it


def make_world(db: Session) -> World:
    tag = uuid.uuid4().hex[:10]
    owner = caller(db, roles.SUPER_ADMIN)
    made = api_keys.create_key(db, actor_id=owner.account_id, name=f"Hooks {tag}", scopes=["webhooks:write"])
    url = f"http://127.0.0.1:9/hooks-{tag}"  # nothing listens: the app's own sender fails quietly
    subscription = WebhookSubscription(api_key_id=made.id, url=url, events=["review.decided"], secret="sealed")
    db.add(subscription)
    db.flush()
    error = f"HTTP 503: down-{tag}"
    now = utcnow()
    delivery = WebhookDelivery(
        subscription_id=subscription.id,
        event_id=f"msg_{tag}",
        event_type="review.decided",
        payload={"type": "review.decided", "timestamp": now.isoformat(), "data": {"review_id": 1}},
        attempts=9,
        given_up_at=now,
        last_status=503,
        last_error=error,
    )
    db.add(delivery)
    db.commit()
    return World(delivery.id, url, error)


async def act(base: str, cookie: str, w: World) -> dict[str, str]:
    """Every handler, in an order a person could use them; the frames seen."""
    seen: dict[str, str] = {}
    tab = RawTab(base, cookie=cookie)

    async def send(name: str, payload: dict[str, Any] | None = None, settle: float = 0.2) -> None:
        await tab.answer(name, payload or {}, settle=settle)

    await tab.open("/admin/webhooks", settle=0.3)
    for name in (*TABLE_READS, *TABLE_VIEW_ONLY):
        payload = {
            "set_page": {"page": 1},
            "set_page_size": {"size": 100},
            "sort": {"column": "createdOn"},
            "search": {"text": w.url},
            "toggle_filter_value": {"name": "status", "value": "failed"},
            "set_filter_mode": {"name": "status", "mode": "list"},
            "set_range_from": {"value": "2020-01-01"},
            "set_range_to": {"value": "2020-01-02"},
            "toggle_selected": {"row_id": str(w.delivery_id)},
            "log_render_failure": {"error": "x", "component_stack": "y"},
        }.get(name, {})
        await send(f"{W}.{name}", payload)
    await send(f"{W}.search", {"text": w.url})
    seen["log"] = tab.text()
    await send(f"{W}.replay", {"delivery_id": "__class__"})  # refused for all
    await send(f"{W}.replay", {"delivery_id": str(w.delivery_id)})
    seen["after"] = tab.text()
    await tab.close()
    return seen


@pytest.mark.parametrize("kind", CALLERS)
def test_every_webhooks_handler_does_exactly_what_the_callers_role_may(app_server, kind):
    with app_server.db() as db:
        w = make_world(db)
        who: Person = caller(db, kind)
    role = kind if kind in roles.ROLES else None
    seen = run(act(app_server.url, who.cookie, w))
    with app_server.db() as db:
        replays = db.exec(
            select(AuditEntry).where(AuditEntry.action == "webhook.replay", AuditEntry.target_id == str(w.delivery_id))
        ).all()
        row = db.get(WebhookDelivery, w.delivery_id)
    may = roles.may(role, roles.WEBHOOKS)
    cells = {
        "replayed": (len(replays) == 1, may),
        "read": (w.error in seen["log"], may),
    }
    wrong = {
        cell: f"took effect={effect}, allowed={allowed}"
        for cell, (effect, allowed) in cells.items()
        if effect != allowed
    }
    assert not wrong, f"{kind}: {wrong}"
    assert len(replays) == (1 if may else 0)
    if not may:  # no row of the log reached a tab that may not read it
        assert w.error not in seen["log"] + seen["after"]
        assert row.given_up_at is not None and row.attempts == 9
    assert [kind for kind in CALLERS if roles.may(kind, roles.WEBHOOKS)] == [roles.SUPER_ADMIN, roles.TEAM_OWNER]


def test_the_scenario_sends_every_public_handler_of_the_webhooks_state():
    source = inspect.getsource(act)
    missing = []
    for handler in AdminWebhooksState.event_handlers:
        if handler == "setvar":  # refused for every browser (states/event_guard.py)
            continue
        generic = handler in TABLE_READS or handler in TABLE_VIEW_ONLY
        loops_over_table = 'await send(f"{W}.{name}"' in source
        if f'{{W}}.{handler}"' not in source and not (generic and loops_over_table):
            missing.append(f"AdminWebhooksState.{handler}")
    assert not missing, missing
