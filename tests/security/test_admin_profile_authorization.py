"""The handlers of /admin/participants/{id} (the staff view of a participant's profile), sent as raw
websocket events by anonymous visitors, participants and each staff role, on a participant made for that
caller: the profile is read, changed and verified exactly where the roles table allows it (every staff role
may edit and verify a participant), and nobody else is shown the participant's data.

Each caller sends every public handler of the state (checked against the state itself below).
"""

from __future__ import annotations

import inspect
from typing import Any

import pytest
from sqlmodel import select

from portal.domain.staff import roles
from portal.models import Account, AuditEntry, ParticipantProfile
from portal.states.admin.profile import AdminProfileState
from tests.security.test_admin_authorization import CALLERS, caller
from tests.support.people import Person, person
from tests.support.raw_tab import RawTab, run

P = AdminProfileState.get_full_name()


async def act(base: str, cookie: str, target_id: int) -> str:
    """Every handler of the page, in an order a person could use them; what the tab was shown."""
    tab = RawTab(base, cookie=cookie)

    async def send(name: str, payload: dict[str, Any] | None = None, settle: float = 0.2) -> None:
        await tab.answer(name, payload or {}, settle=settle)

    await tab.open(f"/admin/participants/{target_id}", {"admin_participant_id": str(target_id)}, settle=0.3)
    await send(f"{P}.load", settle=0.4)
    await send(f"{P}.more_industries")
    await send(f"{P}.more_company_sizes")
    await send(f"{P}.more_roles")
    await send(f"{P}.search_industries", {"text": "bank"})
    await send(f"{P}.retry_lists")
    await send(f"{P}.toggle_industry", {"industry_id": "1"})
    await send(f"{P}.toggle_industry", {"industry_id": "1"})
    await send(f"{P}.toggle_role", {"role_id": "1"})
    await send(f"{P}.toggle_audience", {"audience_id": "1"})
    await send(f"{P}.toggle_level", {"key": "senior"})
    await send(f"{P}.set_flag", {"key": "hasExperience", "on": True})
    await send(f"{P}.toggle_language", {"key": "english"})
    await send(f"{P}.set_text", {"key": "firstName", "value": "Edited"})
    # An address of its own per caller (a verification link to one address is sent at most once a minute).
    await send(f"{P}.check_email", {"key": "workEmail", "value": f"work-{target_id}@gmail.com"})
    await send(f"{P}.save", {"verify": True}, settle=0)
    await tab.until(lambda: tab.var(P, "saving") is not True)  # the save has ended: stored or refused
    await tab.drain(0.6)
    text = tab.text()
    await tab.close()
    return text


@pytest.mark.parametrize("kind", CALLERS)
def test_every_profile_handler_does_exactly_what_the_callers_role_may(app_server, kind):
    with app_server.db() as db:
        target: Person = person(db, verified=False)
        who: Person = caller(db, kind)
    role = kind if kind in roles.ROLES else None
    seen = run(act(app_server.url, who.cookie, target.account_id))
    with app_server.db() as db:
        account = db.get(Account, target.account_id)
        profile = db.get(ParticipantProfile, target.account_id)
        rows = db.exec(
            select(AuditEntry).where(
                AuditEntry.target_type == "account", AuditEntry.target_id == str(target.account_id)
            )
        ).all()
        edited = profile is not None and profile.first_name == "Edited"
        may_edit = roles.may(role, roles.EDIT_PROFILES) and roles.may_change_account(role, None)
        may_verify = may_edit and roles.may(role, roles.VERIFY)
        cells = {
            "read": (target.email in seen, roles.may(role, roles.VIEW)),
            "edited": (edited, may_edit),
            "verified": (account.verified, may_verify),
            "one audit row": (len(rows) == 1, may_edit),
        }
    wrong = {
        cell: f"took effect={effect}, allowed={allowed}"
        for cell, (effect, allowed) in cells.items()
        if effect != allowed
    }
    assert not wrong, f"{kind}: {wrong}"
    if role is None:
        assert target.email not in seen and target.first_name not in seen
    assert [k for k in CALLERS if roles.may(k, roles.EDIT_PROFILES)] == list(roles.ROLES)


def test_the_scenario_sends_every_public_handler_of_the_profile_state():
    source = inspect.getsource(act)
    missing = [
        f"AdminProfileState.{h}"
        for h in AdminProfileState.event_handlers
        if h != "setvar" and f'{{P}}.{h}"' not in source
    ]
    assert not missing, missing
