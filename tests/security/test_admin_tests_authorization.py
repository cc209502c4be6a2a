"""Test management handlers (import, export, the edit form), sent as raw websocket events and a raw
upload request by anonymous visitors, participants and each staff role: what takes effect, read from
the database, matches roles.MANAGE_TESTS; what is shown matches roles.VIEW; hostile arguments change
nothing. Every public handler of the states is sent (checked against the states themselves)."""

from __future__ import annotations

import inspect
import json
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlmodel import Session, select

from portal.domain.staff import roles
from portal.models import AuditEntry, Test
from portal.states.admin.editing import TestEditState
from portal.states.admin.tests import AdminTestsState
from tests.security.test_admin_authorization import CALLERS, TABLE_READS, TABLE_VIEW_ONLY, caller
from tests.support.people import Person, demo_test
from tests.support.raw_tab import RawTab, run

E, T = TestEditState.get_full_name(), AdminTestsState.get_full_name()
DEMO = Path(__file__).resolve().parents[2] / "portal" / "data" / "demo_tests" / "01-survey.json"
HOSTILE = [None, 1, True, [], ["payout"], {"a": 1}, "x" * 100_000, "__proto__", "constructor", {"__proto__": 1}]


@dataclass
class World:
    test_id: int
    name: str
    import_name: str
    new_name: str


def make_world(db: Session) -> World:
    test = demo_test(db, "01-survey.json", name=f"Security edit {uuid.uuid4().hex[:10]}")
    db.commit()
    return World(
        test.id, test.name, f"Security import {uuid.uuid4().hex[:10]}", f"Security new {uuid.uuid4().hex[:10]}"
    )


def upload(base: str, who: Person, tab: RawTab, handler: str, content: bytes) -> str:
    """The import handler through Reflex's upload endpoint, as a script would send it."""
    headers = {"reflex-client-token": tab.token, "reflex-event-handler": handler}
    if who.cookie:
        headers["cookie"] = who.cookie
    response = httpx.post(
        f"{base}/_upload", headers=headers, files={"files": ("test.json", content, "application/json")}, timeout=30
    )
    return response.text


async def act(base: str, who: Person, w: World) -> dict[str, str]:
    seen: dict[str, str] = {}
    tab = RawTab(base, cookie=who.cookie)
    await tab.open(f"/admin/tests/{w.test_id}", {"test_id": str(w.test_id)}, settle=0.3)

    async def send(name: str, payload: dict[str, Any] | None = None, settle: float = 0.2) -> None:
        await tab.answer(name, payload or {}, settle=settle)

    await send(f"{E}.load_page")
    seen["edit"] = tab.text()
    tab.received.clear()
    await send(f"{E}.stop_or_resume", settle=0.4)  # running -> stopped (the form below keeps it stopped)
    for bad in HOSTILE:  # nothing of this may change the form or the row
        await send(f"{E}.set_field", {"key": bad, "value": bad})
        await send(f"{E}.set_field", {"key": "payout", "value": bad})
        await send(f"{E}.toggle_qualification", {"name": bad})
    await send(f"{E}.set_field", {"key": "status", "value": "draft"})  # a running test never goes back to draft
    await send(f"{E}.save")
    await send(f"{E}.set_field", {"key": "payout", "value": "33"})
    await send(f"{E}.discard")
    await send(f"{E}.set_field", {"key": "payout", "value": "33"})
    await send(f"{E}.set_field", {"key": "status", "value": "stopped"})
    await send(f"{E}.toggle_qualification", {"name": "No such qualification"})
    await send(f"{E}.save", settle=0.5)
    # The new-version warning's two answers: nobody is taking this test, so there is nothing to confirm.
    await send(f"{E}.keep_editing")
    await send(f"{E}.save_new_version", settle=0.3)
    tab.received.clear()
    await send(f"{E}.export", settle=0.5)
    seen["edit-export"] = tab.text()
    await tab.close()

    tab = RawTab(base, cookie=who.cookie)
    await tab.open("/admin/tests", settle=0.3)
    for name in (*TABLE_READS, *TABLE_VIEW_ONLY):
        payload = {
            "set_page": {"page": 1},
            "set_page_size": {"size": 20},
            "sort": {"column": "payout"},
            "search": {"text": w.name},
            "toggle_filter_value": {"name": "kind", "value": "survey"},
            "set_filter_mode": {"name": "kind", "mode": "exclude"},
            "set_range_from": {"value": "2020-01-01"},
            "set_range_to": {"value": "2020-01-02"},
            "toggle_selected": {"row_id": "1"},
            "log_render_failure": {"error": "x", "component_stack": "y"},
        }.get(name, {})
        await send(f"{T}.{name}", payload)
    await send(f"{T}.search", {"text": w.name})
    seen["list"] = tab.text()
    await send(f"{T}.open_import")
    await send(f"{T}.import_new_version")  # no file is waiting for a confirmation: nothing happens
    await send(f"{T}.cancel_new_version")
    await send(f"{T}.import_rejected")
    await send(f"{T}.close_import")
    await send(f"{T}.open_import")
    await send(f"{T}.open_new")
    for bad in HOSTILE:
        await send(f"{T}.set_new_field", {"key": bad, "value": bad})
        await send(f"{T}.set_new_field", {"key": "productType", "value": bad})
    await send(f"{T}.set_new_field", {"key": "name", "value": w.new_name})
    await send(f"{T}.set_new_field", {"key": "productType", "value": "survey"})
    await send(f"{T}.set_new_field", {"key": "panel", "value": "b2b"})
    await send(f"{T}.create", settle=0.5)
    await send(f"{T}.close_new")
    await send(f"{T}.duplicate", {"test_id": str(w.test_id)}, settle=0.5)
    for bad in HOSTILE:
        await send(f"{T}.duplicate", {"test_id": bad})
    tab.received.clear()
    await send(f"{T}.export", {"test_id": str(w.test_id)}, settle=0.5)
    for bad in HOSTILE:
        await send(f"{T}.export", {"test_id": bad})
    seen["list-export"] = tab.text()
    document = json.loads(DEMO.read_text())
    document["name"] = w.import_name
    seen["import"] = upload(base, who, tab, f"{T}.import_file", json.dumps(document).encode())
    await tab.close()
    return seen


@pytest.mark.parametrize("kind", CALLERS)
def test_test_management_does_exactly_what_the_callers_role_may(app_server, kind):
    with app_server.db() as db:
        w = make_world(db)
        who = caller(db, kind)
    role = kind if kind in roles.ROLES else None
    seen = run(act(app_server.url, who, w))
    with app_server.db() as db:
        test = db.get(Test, w.test_id)
        imported = db.exec(select(Test).where(Test.name == w.import_name)).first()
        made = db.exec(select(Test).where(Test.name == w.new_name)).first()
        copies = db.exec(select(Test).where(Test.name == f"Copy of {w.name}")).all()
        audit = {e.action for e in db.exec(select(AuditEntry).where(AuditEntry.target_id == str(w.test_id))).all()}
    manages = roles.may(role, roles.MANAGE_TESTS)
    cells = {
        "edit saved": ((test.payout_cents, test.status) == (3300, "stopped"), manages),
        "edit audited": ("test.edit" in audit, manages),
        "exported from the edit page": (f"test-{w.test_id}.json" in seen["edit-export"], manages),
        "exported from the list": (f"test-{w.test_id}.json" in seen["list-export"], manages),
        "import created the test": (imported is not None, manages),
        "stopped from its page": ("test.status" in audit, manages),
        "a new test was made": (made is not None and made.status == "draft", manages),
        "the test was duplicated once": (len(copies) == 1 and copies[0].status == "draft", manages),
        "the form was shown": (w.name in seen["edit"], roles.may(role, roles.VIEW)),
        # Rows (their quotas), not the search text the tab itself sent (kept as typed).
        "the list was shown": ("50 people · " in seen["list"], roles.may(role, roles.VIEW)),
    }
    wrong = {
        cell: f"took effect={effect}, allowed={allowed}"
        for cell, (effect, allowed) in cells.items()
        if effect != allowed
    }
    assert not wrong, f"{kind}: {wrong}"
    if not manages:
        assert test.status == "running" and test.payout_cents == 2000


def test_the_scenario_sends_every_public_handler_of_the_test_states():
    source = inspect.getsource(act)
    missing = []
    for letter, state in {"E": TestEditState, "T": AdminTestsState}.items():
        for handler in state.event_handlers:
            if handler == "setvar":
                continue
            generic = letter == "T" and (handler in TABLE_READS or handler in TABLE_VIEW_ONLY)
            if f'{{{letter}}}.{handler}"' not in source and not generic:
                missing.append(f"{state.__name__}.{handler}")
    assert not missing, missing
