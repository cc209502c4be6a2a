"""The handlers of /admin/api-keys, sent as raw websocket events by anonymous visitors, participants and each staff
role: a key is made, and another revoked, by super-admins only (read from the database), only they read the keys,
and the value of a new key reaches only the tab of the super-admin who made it, once, in the event that writes it
into the dialog, never in the page's state.

Each caller sends, in order, every public handler of the state (checked against the state itself below), on a key
made for that caller by another super-admin.
"""

from __future__ import annotations

import inspect
import json
import re
import uuid
from dataclasses import dataclass
from typing import Any

import pytest
from sqlmodel import Session, select

from portal.domain import api_keys as rules
from portal.domain.staff import roles
from portal.models import ApiKey, AuditEntry
from portal.services.admin import api_keys
from portal.states.admin.api_keys import AdminApiKeysState
from tests.security.test_admin_authorization import CALLERS, caller
from tests.support.people import Person
from tests.support.raw_tab import RawTab, run

K = AdminApiKeysState.get_full_name()
KEY_PATTERN = re.compile(r"pk_[A-Za-z0-9_-]{40,}")


@dataclass
class World:
    target_id: int  # a live key another super-admin made: the caller tries to revoke it
    target_name: str  # only the list shows it
    made_name: str  # the key the caller tries to make


def make_world(db: Session) -> World:
    tag = uuid.uuid4().hex[:10]
    owner = caller(db, roles.SUPER_ADMIN)
    made = api_keys.create_key(db, actor_id=owner.account_id, name=f"Target {tag}", scopes=["tests:read"])
    db.commit()
    return World(made.id, f"Target {tag}", f"Made by the caller {tag}")


async def act(base: str, cookie: str, w: World) -> dict[str, Any]:
    """Every handler, in an order a person could use them; the frames seen at each step."""
    seen: dict[str, Any] = {}
    tab = RawTab(base, cookie=cookie)

    async def send(name: str, payload: dict[str, Any] | None = None, settle: float = 0.2) -> None:
        await tab.answer(name, payload or {}, settle=settle)

    await tab.open("/admin/api-keys", settle=0.3)
    await send(f"{K}.load")
    seen["list"] = tab.text()
    await send(f"{K}.toggle_scope", {"scope": "__class__"})
    await send(f"{K}.toggle_scope", {"scope": "tests:read"})
    await send(f"{K}.create", {"form_data": {"name": "", "rate_per_minute": "0"}})  # refused for all
    seen["refused"] = tab.text()
    tab.received.clear()
    await send(f"{K}.create", {"form_data": {"name": w.made_name, "rate_per_minute": "60"}})
    seen["created"] = list(tab.received)
    await send(f"{K}.close_created")
    await send(f"{K}.ask_revoke", {"key_id": str(w.target_id)})
    seen["asked"] = tab.var(K, "revoke_id")
    await send(f"{K}.cancel_revoke")
    await send(f"{K}.revoke", {"key_id": str(w.target_id)})
    seen["after"] = tab.text()
    seen["deltas"] = json.dumps([update["delta"] for update in tab.received])
    seen["state"] = json.dumps(tab.state)
    await tab.close()
    return seen


@pytest.mark.parametrize("kind", CALLERS)
def test_every_api_keys_handler_does_exactly_what_the_callers_role_may(app_server, kind):
    with app_server.db() as db:
        w = make_world(db)
        who: Person = caller(db, kind)
        audit_before = max([row.id for row in db.exec(select(AuditEntry)).all()], default=0)
    role = kind if kind in roles.ROLES else None
    seen = run(act(app_server.url, who.cookie, w))
    may = roles.may(role, roles.API_KEYS)
    with app_server.db() as db:
        made = db.exec(select(ApiKey).where(ApiKey.name == w.made_name)).all()
        target = db.get(ApiKey, w.target_id)
        audit_after = [
            row.action for row in db.exec(select(AuditEntry).where(AuditEntry.id > audit_before)) if "key" in row.action
        ]
    cells = {
        "created": (len(made) == 1, may),
        "revoked": (target.revoked_at is not None, may),
        "listed": (w.target_name in seen["list"], may),
        "asked": (seen["asked"] == str(w.target_id), may),
    }
    wrong = {
        cell: f"took effect={effect}, allowed={allowed}"
        for cell, (effect, allowed) in cells.items()
        if effect != allowed
    }
    assert not wrong, f"{kind}: {wrong}"
    assert rules.NAME_REQUIRED in seen["refused"] if may else rules.NAME_REQUIRED not in seen["refused"]

    # The new key's value: in exactly one event of the maker's tab, matching the stored hash; never in a delta.
    deltas = seen["deltas"] + seen["state"]
    events = json.dumps([update["events"] for update in seen["created"]])
    assert not KEY_PATTERN.search(deltas)
    if may:
        shown = set(KEY_PATTERN.findall(events))
        assert len(shown) == 1, shown
        (value,) = shown
        assert rules.key_hash(value) == made[0].key_hash
        assert target.revoked_by_id is not None
        assert audit_after == ["api-key.create", "api-key.revoke"], audit_after
    else:
        assert not KEY_PATTERN.search(events)
        assert w.target_name not in seen["after"]
        assert audit_after == [], audit_after
    assert [kind for kind in CALLERS if roles.may(kind, roles.API_KEYS)] == [roles.SUPER_ADMIN]


def test_the_scenario_sends_every_public_handler_of_the_api_keys_state():
    source = inspect.getsource(act)
    missing = [
        f"AdminApiKeysState.{handler}"
        for handler in AdminApiKeysState.event_handlers
        if handler != "setvar" and f'{{K}}.{handler}"' not in source
    ]
    assert not missing, missing
