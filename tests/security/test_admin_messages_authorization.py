"""Staff messages (issue 38, item 3) against the real app, as raw websocket events: every public handler of
AdminMessagesState, and the participants page's group message (AdminParticipantsState's open_group, close_group,
send_group), sent by anonymous visitors, participants and each staff role, with good and bad arguments. Only staff
with the 'message' permission read a thread, reply, start one and message a group; the server logs no traceback. A
check that the scenario sends every handler."""

from __future__ import annotations

import inspect
import uuid

import pytest
from sqlmodel import func, select

from portal.domain.staff import roles
from portal.models import Message, MessageThread
from portal.services import messages
from portal.states.admin.messages import AdminMessagesState
from portal.states.admin.participants import AdminParticipantsState
from tests.support.people import caller, person
from tests.support.raw_tab import RawTab, run, tracebacks

M = AdminMessagesState.get_full_name()
P = AdminParticipantsState.get_full_name()
CALLERS = ("anonymous", "participant", *roles.ROLES)
GROUP_HANDLERS = ("open_group", "close_group", "send_group")  # test_admin_authorization.py leaves these to this file


async def act(base: str, cookie: str | None, thread_id: int, participant_id: int, tag: str, marker: str) -> dict:
    seen: dict[str, str] = {}
    tab = RawTab(base, cookie=cookie)
    await tab.open("/admin/messages", {"to": str(participant_id)}, settle=0.3)

    async def send(name: str, payload: dict | None = None, settle: float = 0.2) -> None:
        await tab.answer(name, payload or {}, settle=settle)

    await send(f"{M}.load_page")
    await send(f"{M}.show_unread", {"on": True})
    for bad in (None, 1.5, [], {"a": 1}, "x" * 5000, "-1", "999999999"):
        await send(f"{M}.open", {"thread_id": bad}, settle=0.05)
    await send(f"{M}.open", {"thread_id": str(thread_id)}, settle=0.3)
    seen["thread"] = tab.text()
    await send(f"{M}.reply", {"form": {"body": f"Reply {marker}"}}, settle=0.3)
    await send(f"{M}.cancel_new")
    await tab.close()

    tab = RawTab(base, cookie=cookie)  # a new message to the participant (?to=ID)
    await tab.open("/admin/messages", {"to": str(participant_id)}, settle=0.3)
    await tab.answer(f"{M}.send_new", {"form": {"subject": f"New {marker}", "body": "Hello"}}, settle=0.3)
    await tab.close()

    tab = RawTab(base, cookie=cookie)  # the group message from the participants page
    await tab.open("/admin/participants", settle=0.3)
    await tab.answer(f"{P}.search", {"text": tag}, settle=0.5)
    await tab.answer(f"{P}.open_group", {}, settle=0.3)
    await tab.answer(f"{P}.close_group", {}, settle=0.1)
    await tab.answer(f"{P}.open_group", {}, settle=0.3)
    await tab.answer(f"{P}.send_group", {"form": ["not", "a", "form"]}, settle=0.1)
    await tab.answer(f"{P}.send_group", {"form": {"subject": f"Group {marker}", "body": "All of you"}}, settle=0.5)
    await tab.close()
    return seen


@pytest.mark.parametrize("kind", CALLERS)
def test_only_staff_who_may_message_read_reply_and_message_a_group(app_server, kind):
    tag = f"Grp{uuid.uuid4().hex[:8]}"
    marker = uuid.uuid4().hex
    secret = f"secret question {marker}"
    with app_server.db() as db:
        who = person(db)
        group = [person(db, last_name=tag), person(db, last_name=tag)]
        thread_id = messages.start(db, account_id=who.account_id, subject="Help", body=secret)
        db.commit()
        me = caller(db, kind)
    log_start = app_server.log_path.stat().st_size
    seen = run(act(app_server.url, me.cookie, thread_id, who.account_id, tag, marker))
    role = kind if kind in roles.ROLES else None
    may = roles.may(role, roles.MESSAGE)
    assert (secret in seen["thread"]) == may, kind
    with app_server.db() as db:
        replies = db.exec(select(func.count()).select_from(Message).where(Message.body == f"Reply {marker}")).one()
        started = db.exec(select(MessageThread).where(MessageThread.subject == f"New {marker}")).all()
        grouped = db.exec(select(MessageThread.account_id).where(MessageThread.subject == f"Group {marker}")).all()
    assert replies == (1 if may else 0), kind
    assert [t.account_id for t in started] == ([who.account_id] if may else []), kind
    assert sorted(grouped) == (sorted(p.account_id for p in group) if may else []), kind
    log = app_server.log_path.read_bytes()[log_start:].decode(errors="replace")
    assert tracebacks(log) == [], kind


def test_the_scenario_sends_every_public_handler():
    source = inspect.getsource(act)
    missing = [h for h in AdminMessagesState.event_handlers if h != "setvar" and f'{{M}}.{h}"' not in source]
    missing += [h for h in GROUP_HANDLERS if f'{{P}}.{h}"' not in source]
    assert not missing, missing
