"""Messages (issue 38, item 3) as raw websocket events: nobody reads or writes another person's thread (a
participant naming another's thread id, an anonymous visitor, a participant on a tab the owner used), and a
participant's events to the staff inbox's handlers read and send nothing; no traceback in the server log."""

from __future__ import annotations

import uuid

from sqlmodel import func, select

from portal.models import Message, MessageGroup, MessageThread
from portal.services import messages
from portal.states.admin.messages import AdminMessagesState
from portal.states.admin.participants import AdminParticipantsState
from portal.states.messages import MessagesState
from tests.support.people import ANONYMOUS, person
from tests.support.raw_tab import RawTab, run, tracebacks

MINE = MessagesState.get_full_name()
STAFF = AdminMessagesState.get_full_name()
PARTICIPANTS = AdminParticipantsState.get_full_name()
SECRET = "my private question " + uuid.uuid4().hex


def counts(app_server, thread_id: int) -> tuple[int, int, int]:
    with app_server.db() as db:
        return (
            db.exec(select(func.count()).select_from(Message).where(Message.thread_id == thread_id)).one(),
            db.exec(select(func.count()).select_from(MessageThread)).one(),
            db.exec(select(func.count()).select_from(MessageGroup)).one(),
        )


def test_nobody_reads_or_writes_another_persons_thread(app_server):
    with app_server.db() as db:
        owner, other = person(db), person(db)
        thread_id = messages.start(db, account_id=owner.account_id, subject="Private", body=SECRET)
        db.commit()
    before = counts(app_server, thread_id)

    async def scenario() -> list[str]:
        mine = RawTab(app_server.url, cookie=owner.cookie)
        await mine.open("/messages", settle=0.5)
        await mine.close()
        seen = []
        for cookie, token in ((other.cookie, None), (ANONYMOUS.cookie, None), (other.cookie, mine.token)):
            tab = RawTab(app_server.url, cookie=cookie, token=token)
            await tab.open("/messages", {"thread": str(thread_id)}, settle=0.5)
            await tab.send(f"{MINE}.open", {"thread_id": str(thread_id)})
            await tab.send(f"{MINE}.open", {"thread_id": thread_id})
            await tab.send(f"{MINE}.reply", {"form": {"body": "hijack"}})
            await tab.send(f"{MINE}.send_new", {"form": {"subject": "x", "body": "y", "about": "1"}})
            # The staff side, as a participant or nobody: refused (a toast, no state), nothing read or sent.
            await tab.answer(f"{STAFF}.open", {"thread_id": str(thread_id)})
            await tab.answer(f"{STAFF}.reply", {"form": {"body": "hijack"}})
            await tab.answer(f"{STAFF}.show_unread", {"on": True})
            await tab.answer(f"{PARTICIPANTS}.open_group", {})
            await tab.answer(f"{PARTICIPANTS}.send_group", {"form": {"subject": "Spam", "body": "Spam"}})
            await tab.close()
            seen.append(tab.text())
        return seen

    for text in run(scenario()):
        assert SECRET not in text
    after = counts(app_server, thread_id)
    assert after[0] == before[0] and after[2] == before[2]
    # The other participant's own send_new made at most a thread of their own, never one in the owner's.
    with app_server.db() as db:
        strangers = db.exec(
            select(MessageThread).where(MessageThread.id != thread_id, MessageThread.account_id == owner.account_id)
        ).all()
    assert strangers == []
    assert tracebacks(app_server.log_path.read_text()) == []
