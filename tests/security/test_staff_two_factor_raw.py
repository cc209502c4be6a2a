"""Staff act only with two-factor sign-in on (issue 40, item 1), sent as raw websocket events: a super-admin whose
account has it off is refused by every staff service (here: verifying a participant from the participants page, and
the page's load), and the admin guard sends the tab to turn it on; the same events from the same role with it on
verify the participant, so the refusal is the second factor's and nothing else's."""

from __future__ import annotations

import pytest

from portal.domain.staff import roles
from portal.models import Account
from portal.states.admin.guard import StaffState
from portal.states.admin.participants import AdminParticipantsState
from tests.support import two_factor
from tests.support.people import person
from tests.support.raw_tab import RawTab, run, tracebacks

P, G = AdminParticipantsState.get_full_name(), StaffState.get_full_name()


@pytest.mark.parametrize("with_two_factor", [False, True])
def test_a_staff_event_needs_two_factor_sign_in(app_server, with_two_factor: bool):
    with app_server.db() as db:
        staff = person(db)
        account = db.get(Account, staff.account_id)
        account.staff_role = roles.SUPER_ADMIN
        db.add(account)
        db.commit()
        if with_two_factor:
            two_factor.enable(db, staff.account_id)
        target = person(db, verified=False)

    async def scenario() -> RawTab:
        tab = RawTab(app_server.url, cookie=staff.cookie)
        await tab.open("/admin/participants", settle=0.5)
        for name, payload in (
            (f"{G}.guard", {}),
            (f"{P}.search", {"text": target.email}),
            (f"{P}.toggle_selected", {"row_id": str(target.account_id)}),
            (f"{P}.ask", {"action": "verify"}),
            (f"{P}.confirm", {}),
        ):
            await tab.answer(name, payload, settle=0.3)
        await tab.close()
        return tab

    tab = run(scenario())
    with app_server.db() as db:
        assert db.get(Account, target.account_id).verified is with_two_factor
    sent_to_turn_on = "/account?two_factor=1" in tab.text()
    assert sent_to_turn_on is not with_two_factor
    assert tracebacks(app_server.log_path.read_text()) == []
