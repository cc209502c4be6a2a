"""A test's versions page against the real app: every public handler of its state sent as raw websocket
events by anonymous visitors, participants and each staff role. Staff (any role: roles.VIEW) see the
versions and what changed; nobody else sees a version, a count or a question of it; hostile arguments
show nothing and break nothing. A check that the scenario sends every handler."""

from __future__ import annotations

import inspect
import uuid

import pytest
from sqlmodel import select

from portal.domain.staff import roles
from portal.models import Test, TestVersion
from portal.states.admin.versions import TestVersionsState
from tests.support.people import caller, demo_test
from tests.support.raw_tab import RawTab, run

CALLERS = ("anonymous", "participant", *roles.ROLES)
V = TestVersionsState.get_full_name()
HOSTILE = [None, 1, True, [], {"a": 1}, "x" * 10_000, "__proto__", "0", "-1", "999"]
NEW_FRAME = f"A frame of mind only version 2 has {uuid.uuid4().hex[:8]}"


async def act(base: str, cookie: str | None, test_id: int) -> str:
    tab = RawTab(base, cookie=cookie)
    await tab.open(f"/admin/tests/{test_id}/versions", {"test_id": str(test_id)}, settle=0.3)
    await tab.answer(f"{V}.load", {}, settle=0.4)
    for bad in HOSTILE:
        await tab.answer(f"{V}.choose", {"which": bad, "number": bad}, settle=0.1)
        await tab.answer(f"{V}.choose", {"which": "before", "number": bad}, settle=0.1)
    await tab.answer(f"{V}.choose", {"which": "before", "number": "1"}, settle=0.3)
    await tab.answer(f"{V}.choose", {"which": "after", "number": "2"}, settle=0.4)
    seen = tab.text()
    await tab.close()
    return seen


@pytest.mark.parametrize("kind", CALLERS)
def test_only_staff_see_a_tests_versions_and_what_changed(app_server, kind):
    with app_server.db() as db:
        test = demo_test(db, "01-survey.json", name=f"Versions {uuid.uuid4().hex[:10]}")
        # Version 1 in use, then an edit: version 2.
        one = db.exec(select(TestVersion).where(TestVersion.test_id == test.id)).one()
        one.sealed = True
        db.add(one)
        db.commit()
        row = db.get(Test, test.id)
        row.frame_of_mind = NEW_FRAME
        db.add(row)
        db.commit()
        who = caller(db, kind)
    seen = run(act(app_server.url, who.cookie, test.id))
    staff = roles.may(kind if kind in roles.ROLES else None, roles.VIEW)
    assert ("frameOfMind" in seen) == staff, kind  # the path of the change between version 1 and 2
    assert (NEW_FRAME in seen) == staff, kind


def test_the_scenario_sends_every_public_handler_of_the_versions_state():
    source = inspect.getsource(act)
    missing = [h for h in TestVersionsState.event_handlers if h != "setvar" and f'{{V}}.{h}"' not in source]
    assert not missing, missing
