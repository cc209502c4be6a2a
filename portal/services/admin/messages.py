"""Staff: messages with participants (issue 38, item 3), behind require_staff(MESSAGE).

Staff share one inbox: the threads of every participant, newest first, filtered by participant or by test; a
participant's message is unread until a staff member opens its thread. Staff start a thread with one participant
(general, or about one of their reviews) or send one message to a filtered group (the participants table's search
and filters, as the invite page chooses: services/admin/participant_sets.py), each recipient getting a thread of
their own. A group send names a request key (unique), so a double click or a retry sends once. Every message from
staff is a notification to the participant, and every start and group send is audited.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import func, insert, select
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from portal.domain import emails
from portal.domain import inbox as rules
from portal.domain import notifications as notification_rules
from portal.domain.ids import whole_number
from portal.domain.staff import roles
from portal.models import Account, Message, MessageGroup, MessageThread, ParticipantProfile, Review
from portal.models._base import utcnow
from portal.services import messages as shared
from portal.services import notifications, row_locks
from portal.services.admin import audit, participant_sets
from portal.services.admin.guard import Caller, Staff, require_staff
from portal.services.errors import ServiceError
from portal.settings import settings

PAGE = 50


def _sender(session: Session, staff: Staff) -> str:
    profile = session.get(ParticipantProfile, staff.account_id)
    return rules.staff_sender(profile.first_name if profile else None, settings.brand_name)


def _thread(session: Session, thread_id: Any) -> MessageThread:
    number = whole_number(thread_id)
    thread = session.get(MessageThread, number) if number else None
    if thread is None:
        raise ServiceError(rules.NOT_FOUND)
    return thread


def threads(
    session: Session,
    *,
    actor_id: Caller,
    participant_id: Any = None,
    test_id: Any = None,
    unread_only: Any = False,
) -> list[dict[str, str]]:
    """The newest threads (PAGE), of one participant or one test when given; unread first only when asked."""
    require_staff(session, actor_id, roles.MESSAGE)
    query = select(MessageThread)
    if participant_id not in (None, ""):
        query = query.where(MessageThread.account_id == (whole_number(participant_id) or -1))
    if test_id not in (None, ""):
        query = query.where(MessageThread.test_id == (whole_number(test_id) or -1))
    if unread_only is True:
        waiting = select(Message.thread_id).where(Message.from_staff.is_(False), Message.read_at.is_(None))
        query = query.where(MessageThread.id.in_(waiting))
    found = list(
        session.execute(
            query.order_by(MessageThread.last_message_at.desc(), MessageThread.id.desc()).limit(PAGE)
        ).scalars()
    )
    return shared.summaries(session, found, reader_is_staff=True)


def unread_count(session: Session, *, actor_id: Caller) -> int:
    """Participants' messages no staff member has opened yet."""
    require_staff(session, actor_id, roles.MESSAGE)
    return int(
        session.execute(
            select(func.count()).select_from(Message).where(Message.from_staff.is_(False), Message.read_at.is_(None))
        ).scalar_one()
    )


def open_thread(session: Session, *, actor_id: Caller, thread_id: Any, now: datetime | None = None) -> dict[str, Any]:
    require_staff(session, actor_id, roles.MESSAGE)
    return shared.thread_view(session, _thread(session, thread_id), reader_is_staff=True, now=now or utcnow())


def participant(session: Session, *, actor_id: Caller, account_id: Any) -> dict[str, str]:
    """Who a new message goes to (the compose form's heading), with their reviews to choose what it is about."""
    require_staff(session, actor_id, roles.MESSAGE)
    who = _participant(session, account_id)
    names = shared._names(session, {who.id})
    return {"id": str(who.id), "name": names.get(who.id) or "", "email": who.email or ""}


def _participant(session: Session, account_id: Any) -> Account:
    number = whole_number(account_id)
    who = session.get(Account, number) if number else None
    if who is None or who.removed_at is not None or roles.is_staff(who.staff_role):
        raise ServiceError(rules.NO_PARTICIPANT)
    return who


def _clean(subject: Any, body: Any) -> tuple[str, str]:
    clean_subject, subject_problem = rules.clean_subject(subject)
    clean_body, body_problem = rules.clean_body(body)
    problems = {k: v for k, v in (("subject", subject_problem), ("body", body_problem)) if v}
    if problems:
        raise ServiceError(next(iter(problems.values())), field=next(iter(problems)), errors=problems)
    return clean_subject, clean_body


def start(
    session: Session,
    *,
    actor_id: Caller,
    account_id: Any,
    subject: Any,
    body: Any,
    review_id: Any = None,
    now: datetime | None = None,
) -> int:
    """Start a thread with one participant (about one of their reviews when given); its id."""
    staff = require_staff(session, actor_id, roles.MESSAGE)
    now = now or utcnow()
    who = _participant(session, account_id)
    clean_subject, clean_body = _clean(subject, body)
    review = None
    if review_id not in (None, ""):
        number = whole_number(review_id)
        review = session.get(Review, number) if number else None
        if review is None or review.account_id != who.id:
            raise ServiceError(rules.NO_REVIEW, field="about")
    thread = MessageThread(
        account_id=who.id,
        test_id=review.test_id if review else None,
        review_id=review.id if review else None,
        subject=clean_subject,
        started_by_staff=True,
        created_at=now,
        last_message_at=now,
    )
    session.add(thread)
    session.flush()
    message = shared.add(session, thread, body=clean_body, from_staff=True, author_id=staff.account_id, now=now)
    shared.notify_participant(session, thread, message, _sender(session, staff))
    audit.record(
        session, staff, "message.start", "account", who.id, {}, {"thread": thread.id, "subject": clean_subject}
    )
    return int(thread.id)


def reply(session: Session, *, actor_id: Caller, thread_id: Any, body: Any, now: datetime | None = None) -> None:
    staff = require_staff(session, actor_id, roles.MESSAGE)
    thread = _thread(session, thread_id)
    text, problem = rules.clean_body(body)
    if problem:
        raise ServiceError(problem, field="body")
    message = shared.add(session, thread, body=text, from_staff=True, author_id=staff.account_id, now=now or utcnow())
    shared.notify_participant(session, thread, message, _sender(session, staff))


def group_count(session: Session, *, actor_id: Caller, criteria: Any) -> int:
    """How many participants a group message with these criteria reaches (shown before sending)."""
    require_staff(session, actor_id, roles.MESSAGE)
    values: dict[str, Any] = {}
    where = participant_sets.matching(participant_sets.criteria(criteria), values)
    return int(session.execute(participant_sets.people(func.count()).where(*where), values).scalar_one())


def send_group(
    session: Session,
    *,
    actor_id: Caller,
    criteria: Any,
    subject: Any,
    body: Any,
    request_key: Any,
    now: datetime | None = None,
) -> int:
    """One message to every participant the criteria choose, each in a thread of their own; how many got it.
    The same request key again (a double click, a retry, a second tab) sends nothing: SENT_ALREADY."""
    staff = require_staff(session, actor_id, roles.MESSAGE)
    now = now or utcnow()
    if not isinstance(request_key, str) or not 8 <= len(request_key) <= 64:
        raise ServiceError(rules.SENT_ALREADY)
    clean_subject, clean_body = _clean(subject, body)
    row_locks.locked(session, Account, staff.account_id)  # one send of this staff member at a time (SQLite too)
    if session.execute(select(MessageGroup.id).where(MessageGroup.request_key == request_key)).first():
        raise ServiceError(rules.SENT_ALREADY)
    chosen = participant_sets.criteria(criteria)
    values: dict[str, Any] = {}
    where = participant_sets.matching(chosen, values)
    people = session.execute(
        participant_sets.people(Account.id, Account.email)
        .where(*where)
        .order_by(Account.id)
        .limit(rules.GROUP_MAX + 1),
        values,
    ).all()
    if not people:
        raise ServiceError(rules.NOBODY)
    if len(people) > rules.GROUP_MAX:
        raise ServiceError(rules.TOO_MANY)
    group = MessageGroup(
        staff_id=staff.account_id,
        subject=clean_subject,
        body=clean_body,
        criteria=chosen,
        recipients=len(people),
        request_key=request_key,
        created_at=now,
    )
    session.add(group)
    try:
        session.flush()
    except IntegrityError:  # the same request key committed first: this transaction is rolled back, nothing sent
        raise ServiceError(rules.SENT_ALREADY) from None
    _deliver(session, staff, group, [(int(a), e or "") for a, e in people], now)
    audit.record(
        session,
        staff,
        "message.group",
        "message_group",
        group.id,
        {},
        {"subject": clean_subject, "recipients": len(people), "criteria": chosen},
    )
    return len(people)


def _deliver(session: Session, staff: Staff, group: MessageGroup, people: list[tuple[int, str]], now: datetime) -> None:
    """A thread and its message per recipient, and their notifications, in bulk (one statement per chunk)."""
    sender = _sender(session, staff)
    for start in range(0, len(people), 1000):
        chunk = people[start : start + 1000]
        thread_ids = dict(
            list(
                session.execute(
                    insert(MessageThread).returning(MessageThread.account_id, MessageThread.id),
                    [
                        {
                            "account_id": account_id,
                            "subject": group.subject,
                            "started_by_staff": True,
                            "created_at": now,
                            "last_message_at": now,
                        }
                        for account_id, _ in chunk
                    ],
                ).tuples()
            )
        )
        message_ids = dict(
            list(
                session.execute(
                    insert(Message).returning(Message.thread_id, Message.id),
                    [
                        {
                            "thread_id": thread_ids[account_id],
                            "from_staff": True,
                            "author_id": staff.account_id,
                            "body": group.body,
                            "created_at": now,
                            "group_id": group.id,
                        }
                        for account_id, _ in chunk
                    ],
                ).tuples()
            )
        )
        preview = rules.preview(group.body)
        pending = []
        for account_id, email in chunk:
            thread_id = thread_ids[account_id]
            link = f"{settings.base_url}{rules.PAGE_PATH}?thread={thread_id}"
            mail = emails.new_message(
                brand=settings.brand_name,
                sender=sender,
                subject=group.subject,
                preview=preview,
                link=link,
                settings_link=notifications.settings_link(),
            )
            key = notification_rules.subject_key("message", message_ids[thread_id])
            pending.append(notifications.Pending(account_id, email, key, mail, link))
        notifications.send(session, "message", pending, now=now)
