"""The handlers of /admin/flags and /admin/outbox, sent as raw websocket events by anonymous visitors,
participants and each staff role: what takes effect, read from the database, and what each tab was shown,
match the permission matrix (flags: super-admins; outbox: super-admins and team owners) in every cell.

Each caller sends, in order, every public handler of both states (checked against the states themselves
below), on rows made for that caller: an override to add, one to remove, an e-mail to retry. The flag
changed is reset before each caller, so each caller's own effect is what is read.
"""

from __future__ import annotations

import inspect
import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
from sqlmodel import Session

from portal.domain.staff import roles
from portal.models import Account, FeatureFlag, FeatureFlagUser, OutboxEmail
from portal.models._base import utcnow
from portal.states.admin.flags import AdminFlagsState
from portal.states.admin.outbox import AdminOutboxState
from tests.security.test_admin_authorization import CALLERS, TABLE_READS, TABLE_VIEW_ONLY, caller
from tests.support.people import Person, person
from tests.support.raw_tab import RawTab, run

F, O = AdminFlagsState.get_full_name(), AdminOutboxState.get_full_name()
FLAG = "chat-with-your-icp"
PERCENTAGE = 37
LATER = timedelta(hours=3)


@dataclass
class World:
    add_id: int
    add_email: str
    remove_id: int
    remove_email: str  # an override only the flags page shows
    email_id: int
    address: str  # an outbox address only the outbox page shows
    later: Any


def make_world(db: Session) -> World:
    flag = db.get(FeatureFlag, FLAG) or FeatureFlag(key=FLAG)
    flag.enabled, flag.percentage = False, 100  # as it was before any caller
    db.add(flag)
    added, removed = person(db), person(db)
    db.add(FeatureFlagUser(flag_key=FLAG, account_id=removed.account_id, enabled=True))
    address = f"outbox-{uuid.uuid4().hex[:10]}@example.com"
    later = utcnow() + LATER
    email = OutboxEmail(
        to_address=address,
        subject="Verify your e-mail",
        kind="verify-email",
        body_text="x",
        attempts=2,
        last_error="timed out",
        next_attempt_at=later,
    )
    db.add(email)
    db.commit()
    return World(added.account_id, added.email, removed.account_id, removed.email, email.id, address, later)


async def act(base: str, cookie: str, w: World) -> dict[str, str]:
    """Every handler of both pages, in an order a person could use them; the frames seen per page."""
    seen: dict[str, str] = {}
    tab = RawTab(base, cookie=cookie)

    async def send(name: str, payload: dict[str, Any] | None = None, settle: float = 0.2) -> None:
        await tab.answer(name, payload or {}, settle=settle)

    await tab.open("/admin/flags", settle=0.3)
    await send(f"{F}.load")
    seen["flags"] = tab.text()
    tab.received.clear()
    await send(f"{F}.save_percentage", {"flag_key": FLAG, "form_data": {"percentage": "150"}})  # refused for all
    await send(f"{F}.save_percentage", {"flag_key": "__class__", "form_data": {"percentage": "5"}})
    await send(f"{F}.set_enabled", {"flag_key": FLAG, "enabled": True})
    await send(f"{F}.save_percentage", {"flag_key": FLAG, "form_data": {"percentage": str(PERCENTAGE)}})
    await send(
        f"{F}.add_override", {"flag_key": FLAG, "form_data": {"email": "nobody-here@example.com", "override": "on"}}
    )
    await send(f"{F}.add_override", {"flag_key": FLAG, "form_data": {"email": w.add_email, "override": "on"}})
    await send(f"{F}.remove_override", {"flag_key": FLAG, "account_id": str(w.remove_id)})
    seen["flags-after"] = tab.text()
    await tab.close()

    tab = RawTab(base, cookie=cookie)
    await tab.open("/admin/outbox", settle=0.3)
    for name in (*TABLE_READS, *TABLE_VIEW_ONLY):
        payload = {
            "set_page": {"page": 1},
            "set_page_size": {"size": 100},
            "sort": {"column": "createdOn"},
            "search": {"text": w.address},
            "toggle_filter_value": {"name": "status", "value": "retrying"},
            "set_filter_mode": {"name": "status", "mode": "list"},
            "set_range_from": {"value": "2020-01-01"},
            "set_range_to": {"value": "2020-01-02"},
            "toggle_selected": {"row_id": str(w.email_id)},
            "log_render_failure": {"error": "x", "component_stack": "y"},
        }.get(name, {})
        await send(f"{O}.{name}", payload)
    await send(f"{O}.search", {"text": w.address})
    seen["outbox"] = tab.text()
    await send(f"{O}.retry", {"email_id": str(w.email_id)})
    await tab.close()
    return seen


def _effects(db: Session, w: World) -> dict[str, bool]:
    flag = db.get(FeatureFlag, FLAG)
    added = db.get(FeatureFlagUser, (FLAG, w.add_id))
    email = db.get(OutboxEmail, w.email_id)
    return {
        "flag-on": flag.enabled,
        "flag-percentage": flag.percentage == PERCENTAGE,
        "override-added": added is not None and added.enabled,
        "override-removed": db.get(FeatureFlagUser, (FLAG, w.remove_id)) is None,
        "outbox-retry": email.sent_at is not None or email.next_attempt_at < w.later - timedelta(hours=1),
    }


@pytest.mark.parametrize("kind", CALLERS)
def test_every_flags_and_outbox_handler_does_exactly_what_the_callers_role_may(app_server, kind):
    with app_server.db() as db:
        w = make_world(db)
        who: Person = caller(db, kind)
    role = kind if kind in roles.ROLES else None
    seen = run(act(app_server.url, who.cookie, w))
    with app_server.db() as db:
        done = _effects(db, w)
        assert db.get(Account, w.add_id) is not None
    may_flags, may_outbox = roles.may(role, roles.FLAGS), roles.may(role, roles.OUTBOX)
    cells = {
        **{
            name: (done[name], may_flags)
            for name in ("flag-on", "flag-percentage", "override-added", "override-removed")
        },
        "outbox-retry": (done["outbox-retry"], may_outbox),
        "flags-read": (w.remove_email in seen["flags"], may_flags),
        "outbox-read": ("timed out" in seen["outbox"] and "Verify your e-mail" in seen["outbox"], may_outbox),
    }
    wrong = {
        cell: f"took effect={effect}, allowed={allowed}"
        for cell, (effect, allowed) in cells.items()
        if effect != allowed
    }
    assert not wrong, f"{kind}: {wrong}"
    if not may_flags:  # no override e-mail reached a tab that may not see the flags
        assert w.remove_email not in seen["flags"] + seen["flags-after"]
        assert w.add_email not in seen["flags-after"]
    if not may_outbox:  # and no outbox row (the address is only in the search box the tab itself sent)
        assert "timed out" not in seen["outbox"] and "Verify your e-mail" not in seen["outbox"]
    assert [kind for kind in CALLERS if roles.may(kind, roles.FLAGS)] == [roles.SUPER_ADMIN]
    assert [kind for kind in CALLERS if roles.may(kind, roles.OUTBOX)] == [roles.SUPER_ADMIN, roles.TEAM_OWNER]


def test_the_scenario_sends_every_public_handler_of_the_flags_and_outbox_states():
    source = inspect.getsource(act)
    missing = []
    for letter, state in {"F": AdminFlagsState, "O": AdminOutboxState}.items():
        for handler in state.event_handlers:
            if handler == "setvar":  # refused for every browser (states/event_guard.py)
                continue
            generic = handler in TABLE_READS or handler in TABLE_VIEW_ONLY
            loops_over_table = f'await send(f"{{{letter}}}.{{name}}"' in source
            if f'{{{letter}}}.{handler}"' not in source and not (generic and loops_over_table):
                missing.append(f"{state.__name__}.{handler}")
    assert not missing, missing
