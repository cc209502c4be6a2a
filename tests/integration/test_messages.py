"""Messages between staff and a participant (issue 38, item 3) on SQLite and PostgreSQL: either side starts a
thread (general or about a review), each side's unread count, the participant's e-mail naming the sender with the
start of the text (once per message); nobody reads or writes another person's thread; only staff with the
permission use the staff side; a group message reaches exactly the filtered set, and 50 identical sends at once
send it once."""

from __future__ import annotations

import uuid

import pytest
from sqlalchemy import func, select
from sqlmodel import Session

from portal.domain import inbox as rules
from portal.domain.staff import roles
from portal.models import Message, MessageGroup, MessageThread, OutboxEmail, ParticipantProfile
from portal.services import messages
from portal.services.admin import messages as staff_messages
from portal.services.admin.guard import StaffRefused
from portal.services.errors import ServiceError
from tests.integration.test_admin_services import a_review, a_test, person
from tests.support.races import all_at_once

TM = roles.TEAM_MANAGER


def named(session: Session, account, first: str, last: str = "Person"):
    profile = session.get(ParticipantProfile, account.id)
    profile.first_name, profile.last_name = first, last
    session.add(profile)
    session.commit()
    return account


def mails(session: Session, to: str) -> list[OutboxEmail]:
    session.expire_all()
    return list(
        session.execute(
            select(OutboxEmail)
            .where(OutboxEmail.to_address == to, OutboxEmail.kind == "message")
            .order_by(OutboxEmail.id)
        ).scalars()
    )


def test_a_participant_and_staff_exchange_messages_each_with_their_unread_count(session):
    staff = named(session, person(session, role=TM), "Sam", "Staff")
    who = named(session, person(session), "Pat", "Panel")
    test = a_test(session)
    review, _ = a_review(session, test, who)

    baseline = staff_messages.unread_count(session, actor_id=staff.id)
    thread_id = messages.start(
        session,
        account_id=who.id,
        subject="  Timer   stopped ",
        body="The timer stopped at 3:00.\n",
        review_id=review.id,
    )
    session.commit()
    assert staff_messages.unread_count(session, actor_id=staff.id) == baseline + 1
    listed = staff_messages.threads(session, actor_id=staff.id, test_id=test.id)
    assert [(t["subject"], t["about"], t["participant"], t["unread"]) for t in listed] == [
        ("Timer stopped", test.name, "Pat Panel", "1")
    ]
    assert staff_messages.threads(session, actor_id=staff.id, participant_id=who.id)[0]["id"] == str(thread_id)

    seen = staff_messages.open_thread(session, actor_id=staff.id, thread_id=thread_id)
    session.commit()
    assert [(m["who"], m["body"], m["mine"]) for m in seen["messages"]] == [
        ("Pat Panel", "The timer stopped at 3:00.", "")
    ]
    assert staff_messages.unread_count(session, actor_id=staff.id) == baseline

    staff_messages.reply(session, actor_id=staff.id, thread_id=thread_id, body="Thanks, Pat: we added 10 minutes.")
    session.commit()
    assert messages.unread_count(session, account_id=who.id) == 1
    sent = mails(session, who.email)
    assert len(sent) == 1
    assert sent[0].subject == "Sam from Participants Portal wrote to you: Timer stopped"
    assert "Thanks, Pat: we added 10 minutes." in sent[0].body_text
    assert f"/messages?thread={thread_id}" in sent[0].body_text

    mine = messages.open_thread(session, account_id=who.id, thread_id=thread_id)
    session.commit()
    assert [(m["who"], m["mine"]) for m in mine["messages"]] == [
        ("You", "1"),
        ("Sam from Participants Portal", ""),
    ]
    assert messages.unread_count(session, account_id=who.id) == 0
    assert messages.inbox(session, account_id=who.id)[0]["unread"] == "0"


def test_staff_start_a_thread_and_the_participant_is_told_once(session):
    staff = named(session, person(session, role=TM), "Alex")
    who = person(session)
    thread_id = staff_messages.start(session, actor_id=staff.id, account_id=who.id, subject="Hello", body="Welcome!")
    session.commit()
    assert messages.inbox(session, account_id=who.id)[0] | {"when": ""} == {
        "id": str(thread_id),
        "subject": "Hello",
        "about": rules.GENERAL,
        "participant": "",
        "participant_id": str(who.id),
        "when": "",
        "last": "Welcome!",
        "unread": "1",
    }
    assert len(mails(session, who.email)) == 1
    for bad, message in ((("", "x"), rules.SUBJECT_REQUIRED), (("x", "  "), rules.BODY_REQUIRED)):
        with pytest.raises(ServiceError) as refused:
            staff_messages.start(session, actor_id=staff.id, account_id=who.id, subject=bad[0], body=bad[1])
        assert refused.value.message == message
        session.rollback()
    with pytest.raises(ServiceError) as long:
        staff_messages.reply(session, actor_id=staff.id, thread_id=thread_id, body="x" * (rules.BODY_MAX + 1))
    assert long.value.message == rules.BODY_TOO_LONG
    session.rollback()
    for target in (staff.id, 10**12, "abc", None):
        with pytest.raises(ServiceError):
            staff_messages.start(session, actor_id=staff.id, account_id=target, subject="Hi", body="Hi")
        session.rollback()


def test_nobody_reads_or_writes_another_persons_thread(session):
    a, b = person(session), person(session)
    test = a_test(session)
    a_review_of_a, _ = a_review(session, test, a)
    thread_id = messages.start(session, account_id=a.id, subject="Mine", body="Private.")
    session.commit()
    for call in (
        lambda: messages.open_thread(session, account_id=b.id, thread_id=thread_id),
        lambda: messages.reply(session, account_id=b.id, thread_id=thread_id, body="Hijack"),
        lambda: messages.open_thread(session, account_id=b.id, thread_id="1 OR 1=1"),
        lambda: messages.open_thread(session, account_id=b.id, thread_id=[thread_id]),
    ):
        with pytest.raises(ServiceError) as refused:
            call()
        assert refused.value.message == rules.NOT_FOUND
        session.rollback()
    with pytest.raises(ServiceError) as other_review:
        messages.start(session, account_id=b.id, subject="About", body="Yours", review_id=a_review_of_a.id)
    assert other_review.value.message == rules.NO_REVIEW
    session.rollback()
    assert messages.inbox(session, account_id=b.id) == []
    count = session.execute(select(func.count()).select_from(Message).where(Message.thread_id == thread_id))
    assert count.scalar_one() == 1
    # The staff side refuses participants.
    for call in (
        lambda: staff_messages.threads(session, actor_id=b.id),
        lambda: staff_messages.open_thread(session, actor_id=b.id, thread_id=thread_id),
        lambda: staff_messages.reply(session, actor_id=b.id, thread_id=thread_id, body="x"),
        lambda: staff_messages.group_count(session, actor_id=b.id, criteria={}),
    ):
        with pytest.raises(StaffRefused):
            call()
        session.rollback()


def test_a_group_message_reaches_exactly_the_filtered_set_once_under_fifty_identical_sends(session, db_url):
    staff = person(session, role=TM)
    tag = uuid.uuid4().hex[:8]
    group = [named(session, person(session, country="US"), "Gina", f"Group{tag}") for _ in range(3)]
    named(session, person(session, country="GB"), "Gina", f"Group{tag}")  # filtered out by country
    named(session, person(session, country="US"), "Olga", f"Other{tag}")  # not found by the search
    criteria = {"search": f"Group{tag}", "filters": [{"name": "country", "type": "list", "values": ["US"]}]}
    assert staff_messages.group_count(session, actor_id=staff.id, criteria=criteria) == 3
    key = uuid.uuid4().hex

    def send(s: Session) -> int:
        return staff_messages.send_group(
            s, actor_id=staff.id, criteria=criteria, subject="New tests soon", body="Hello all.", request_key=key
        )

    results = all_at_once(db_url, [send] * 50)
    assert sorted(r for r in results if isinstance(r, int)) == [3]
    session.expire_all()
    assert session.execute(select(func.count()).select_from(MessageGroup)).scalar_one() == 1
    reached = session.execute(select(MessageThread.account_id).where(MessageThread.subject == "New tests soon"))
    assert sorted(reached.scalars()) == sorted(p.id for p in group)
    for p in group:
        assert len(mails(session, p.email)) == 1
        assert messages.unread_count(session, account_id=p.id) == 1
    with pytest.raises(ServiceError) as nobody:
        staff_messages.send_group(
            session,
            actor_id=staff.id,
            criteria={"search": f"Nobody{tag}"},
            subject="x",
            body="y",
            request_key=uuid.uuid4().hex,
        )
    assert nobody.value.message == rules.NOBODY
