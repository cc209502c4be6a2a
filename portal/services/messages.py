"""Messages between staff and a participant (issue 38, item 3), the participant's side and what both sides share.

Every call takes the participant's account from the caller (the page's session), and a thread is found only
among that account's own: another person's thread id answers NOT_FOUND, as a thread that does not exist. Opening a
thread marks the other side's messages read. A message from staff is also a notification (kind 'message'): an
e-mail (and a text, when chosen) naming the sender and showing the start of the text, once per message.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import func, select, update
from sqlmodel import Session

from portal.domain import emails
from portal.domain import inbox as rules
from portal.domain import notifications as notification_rules
from portal.domain.ids import whole_number
from portal.models import Message, MessageThread, ParticipantProfile, Review, Test
from portal.models._base import utcnow
from portal.services import notifications
from portal.services.errors import ServiceError
from portal.settings import settings


def _names(session: Session, account_ids: set[int]) -> dict[int, str]:
    if not account_ids:
        return {}
    rows = session.execute(
        select(ParticipantProfile.account_id, ParticipantProfile.first_name, ParticipantProfile.last_name).where(
            ParticipantProfile.account_id.in_(sorted(account_ids))
        )
    ).all()
    return {account_id: f"{first or ''} {last or ''}".strip() for account_id, first, last in rows}


def own_thread(session: Session, account_id: int, thread_id: Any) -> MessageThread:
    """The participant's thread with this id (NOT_FOUND for another person's, a missing one or a bad id)."""
    number = whole_number(thread_id)
    thread = session.get(MessageThread, number) if number else None
    if thread is None or thread.account_id != account_id:
        raise ServiceError(rules.NOT_FOUND)
    return thread


def add(
    session: Session,
    thread: MessageThread,
    *,
    body: str,
    from_staff: bool,
    author_id: int | None,
    now: datetime,
    group_id: int | None = None,
) -> Message:
    message = Message(
        thread_id=thread.id, from_staff=from_staff, author_id=author_id, body=body, created_at=now, group_id=group_id
    )
    session.add(message)
    thread.last_message_at = now
    session.add(thread)
    session.flush()
    return message


def notify_participant(session: Session, thread: MessageThread, message: Message, sender: str) -> bool:
    """The participant is told of a staff message: sender, subject and the start of the text (once per message)."""
    link = f"{settings.base_url}{rules.PAGE_PATH}?thread={thread.id}"
    mail = emails.new_message(
        brand=settings.brand_name,
        sender=sender,
        subject=thread.subject,
        preview=rules.preview(message.body),
        link=link,
        settings_link=notifications.settings_link(),
    )
    return notifications.notify(
        session,
        kind="message",
        account_id=thread.account_id,
        subject_key=notification_rules.subject_key("message", message.id),
        message=mail,
        link=link,
    )


def thread_view(session: Session, thread: MessageThread, *, reader_is_staff: bool, now: datetime) -> dict[str, Any]:
    """The thread with its messages, oldest first; the other side's unread messages are marked read."""
    session.execute(
        update(Message)
        .where(Message.thread_id == thread.id, Message.from_staff.is_(not reader_is_staff), Message.read_at.is_(None))
        .values(read_at=now)
    )
    messages = list(
        session.execute(select(Message).where(Message.thread_id == thread.id).order_by(Message.id)).scalars()
    )
    names = _names(session, {m.author_id for m in messages if m.author_id} | {thread.account_id})
    test = session.get(Test, thread.test_id) if thread.test_id else None

    def who(m: Message) -> str:
        if not m.from_staff:
            return "You" if not reader_is_staff else (names.get(thread.account_id) or "Participant")
        if reader_is_staff:
            return names.get(m.author_id or 0) or "Staff"
        first = (names.get(m.author_id or 0) or "").split(" ")[0]
        return rules.staff_sender(first, settings.brand_name)

    return {
        "id": str(thread.id),
        "subject": thread.subject,
        "about": test.name if test else rules.GENERAL,
        "participant": names.get(thread.account_id) or "",
        "participant_id": str(thread.account_id),
        "messages": [
            {
                "id": str(m.id),
                "who": who(m),
                "mine": "1" if m.from_staff == reader_is_staff else "",
                "when": rules.stamp(m.created_at),
                "body": m.body,
            }
            for m in messages
        ],
    }


def _unread_by_thread(session: Session, thread_ids: list[int], *, from_staff: bool) -> dict[int, int]:
    if not thread_ids:
        return {}
    rows = session.execute(
        select(Message.thread_id, func.count())
        .where(Message.thread_id.in_(thread_ids), Message.from_staff.is_(from_staff), Message.read_at.is_(None))
        .group_by(Message.thread_id)
    ).all()
    return {thread_id: count for thread_id, count in rows}


def summaries(session: Session, threads: list[MessageThread], *, reader_is_staff: bool) -> list[dict[str, str]]:
    """A list row per thread: subject, what it is about, when, the last message's start, unread count."""
    ids = [t.id for t in threads]
    unread = _unread_by_thread(session, ids, from_staff=not reader_is_staff)
    last: dict[int, str] = {}
    if ids:
        newest = (
            select(Message.thread_id, func.max(Message.id).label("last_id"))
            .where(Message.thread_id.in_(ids))
            .group_by(Message.thread_id)
            .subquery()
        )
        for thread_id, body in session.execute(
            select(Message.thread_id, Message.body).join(newest, Message.id == newest.c.last_id)
        ):
            last[thread_id] = rules.preview(body, 90)
    tests = {
        t.id: t.name
        for t in session.execute(select(Test).where(Test.id.in_({x.test_id for x in threads if x.test_id}))).scalars()
    }
    names = _names(session, {t.account_id for t in threads}) if reader_is_staff else {}
    return [
        {
            "id": str(t.id),
            "subject": t.subject,
            "about": tests.get(t.test_id or 0, rules.GENERAL),
            "participant": names.get(t.account_id, ""),
            "participant_id": str(t.account_id),
            "when": rules.stamp(t.last_message_at),
            "last": last.get(t.id, ""),
            "unread": str(unread.get(t.id, 0)),
        }
        for t in threads
    ]


# --- the participant's side ---------------------------------------------------------------------------------


def inbox(session: Session, *, account_id: int, limit: int = 100) -> list[dict[str, str]]:
    threads = list(
        session.execute(
            select(MessageThread)
            .where(MessageThread.account_id == account_id)
            .order_by(MessageThread.last_message_at.desc(), MessageThread.id.desc())
            .limit(limit)
        ).scalars()
    )
    return summaries(session, threads, reader_is_staff=False)


def unread_count(session: Session, *, account_id: int) -> int:
    """Messages from staff the participant has not opened (the header's badge)."""
    return int(
        session.execute(
            select(func.count())
            .select_from(Message)
            .join(MessageThread, MessageThread.id == Message.thread_id)
            .where(MessageThread.account_id == account_id, Message.from_staff.is_(True), Message.read_at.is_(None))
        ).scalar_one()
    )


def open_thread(session: Session, *, account_id: int, thread_id: Any, now: datetime | None = None) -> dict[str, Any]:
    thread = own_thread(session, account_id, thread_id)
    return thread_view(session, thread, reader_is_staff=False, now=now or utcnow())


def my_tests(session: Session, *, account_id: int, limit: int = 50) -> list[dict[str, str]]:
    """The tests the participant reviewed, newest first: what a new message may be about."""
    rows = session.execute(
        select(Review.id, Test.name)
        .join(Test, Test.id == Review.test_id)
        .where(Review.account_id == account_id)
        .order_by(Review.id.desc())
        .limit(limit)
    ).all()
    return [{"id": str(review_id), "name": name} for review_id, name in rows]


def start(
    session: Session,
    *,
    account_id: int,
    subject: Any,
    body: Any,
    review_id: Any = None,
    now: datetime | None = None,
) -> int:
    """A participant starts a thread, general or about one of their reviews; its id. Staff see it unread."""
    now = now or utcnow()
    clean_subject, subject_problem = rules.clean_subject(subject)
    clean_body, body_problem = rules.clean_body(body)
    if subject_problem or body_problem:
        problems = {k: v for k, v in (("subject", subject_problem), ("body", body_problem)) if v}
        raise ServiceError(next(iter(problems.values())), field=next(iter(problems)), errors=problems)
    review = None
    if review_id not in (None, "", "general"):
        number = whole_number(review_id)
        review = session.get(Review, number) if number else None
        if review is None or review.account_id != account_id:
            raise ServiceError(rules.NO_REVIEW, field="about")
    thread = MessageThread(
        account_id=account_id,
        test_id=review.test_id if review else None,
        review_id=review.id if review else None,
        subject=clean_subject,
        started_by_staff=False,
        created_at=now,
        last_message_at=now,
    )
    session.add(thread)
    session.flush()
    add(session, thread, body=clean_body, from_staff=False, author_id=account_id, now=now)
    return int(thread.id)


def reply(session: Session, *, account_id: int, thread_id: Any, body: Any, now: datetime | None = None) -> None:
    thread = own_thread(session, account_id, thread_id)
    text, problem = rules.clean_body(body)
    if problem:
        raise ServiceError(problem, field="body")
    add(session, thread, body=text, from_staff=False, author_id=account_id, now=now or utcnow())
