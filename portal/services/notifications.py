"""Notifications by e-mail, each sent once per person and event (issue 38).

`send` writes, in the caller's transaction, one `notification` row per recipient with an INSERT .. ON CONFLICT DO
NOTHING on (account, kind, subject key), and queues an e-mail in the outbox only for the rows it inserted: the same
event told twice (a retry, 50 identical requests, two workers) queues one e-mail. Kinds a recipient turned off
queue nothing. Rows and e-mails are written in bulk (one statement per chunk), so a batch of 10,000 invites is
queued in seconds. Every e-mail carries its one-click unsubscribe URL (the outbox's unsubscribe_url). Who chose
the kind as a text too (portal/services/sms.py) gets it in the SMS outbox as well, also once; a kind turned off
for e-mail still comes as a text when chosen so.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import insert, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session

from portal.domain import notifications as rules
from portal.domain import sms as sms_rules
from portal.domain.emails import Email
from portal.models import Account, Notification, NotificationOptOut, OutboxEmail
from portal.models._base import utcnow
from portal.services import notification_tokens as tokens
from portal.services import sms
from portal.settings import settings

CHUNK = 1000


@dataclass(frozen=True)
class Pending:
    """One notification to send: to whom, about which event, and its e-mail."""

    account_id: int
    to: str
    subject_key: str
    message: Email
    link: str | None = None


def settings_link() -> str:
    return f"{settings.base_url}{rules.PAGE_PATH}"


def send(session: Session, kind: str, pending: Sequence[Pending], *, now: datetime | None = None) -> int:
    """Queue each pending notification of `kind` not sent before and not turned off; how many were queued."""
    if not rules.is_kind(kind):
        raise ValueError(f"unknown notification kind {kind!r}")
    now = now or utcnow()
    queued = 0
    for start in range(0, len(pending), CHUNK):
        queued += _send_chunk(session, kind, pending[start : start + CHUNK], now)
    return queued


def _send_chunk(session: Session, kind: str, pending: Sequence[Pending], now: datetime) -> int:
    wanted = {(p.account_id, p.subject_key): p for p in pending if p.to}
    if not wanted:
        return 0
    people = {account_id for account_id, _ in wanted}
    off = turned_off(session, kind, people)
    phones = sms.recipients(session, kind, people)  # who chose this kind as a text too (issue 38, item 2)
    rows = [
        {"account_id": a, "kind": kind, "subject_key": key, "created_at": now}
        for (a, key) in wanted
        if a not in off or a in phones
    ]
    if not rows:
        return 0
    make = postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert
    inserted = session.execute(
        make(Notification)
        .values(rows)
        .on_conflict_do_nothing()
        .returning(Notification.account_id, Notification.subject_key)
    ).all()
    if not inserted:
        return 0
    mails, texts = [], []
    for account_id, key in inserted:
        item = wanted[(account_id, key)]
        if account_id in phones:
            body = sms_rules.notification_text(settings.brand_name, item.message.subject, item.link or home_link())
            texts.append(_text(account_id, phones[account_id], body, kind, now))
        if account_id in off:
            continue
        mails.append(
            {
                "to_address": item.to,
                "subject": item.message.subject[:300],
                "body_text": item.message.body,
                "kind": kind,
                "link": item.link,
                "unsubscribe_url": tokens.url(account_id, kind) if rules.can_turn_off(kind) else None,
                "created_at": now,
                "attempts": 0,
                "next_attempt_at": now,
            }
        )
    if mails:
        session.execute(insert(OutboxEmail), mails)
    sms.queue(session, texts)
    return len(inserted)


def _text(account_id: int, phone: str, body: str, kind: str, now: datetime) -> dict[str, object]:
    return {
        "account_id": account_id,
        "to_number": phone,
        "body": body,
        "kind": kind,
        "created_at": now,
        "attempts": 0,
        "next_attempt_at": now,
    }


def home_link() -> str:
    return f"{settings.base_url}/"


def notify(
    session: Session,
    *,
    kind: str,
    account_id: int,
    subject_key: str,
    message: Email,
    to: str | None = None,
    link: str | None = None,
    now: datetime | None = None,
) -> bool:
    """One notification; the address is the account's own e-mail unless `to` is given. Whether it was queued."""
    if to is None:
        to = recipients(session, [account_id]).get(account_id, "")
    if not to:
        return False
    return send(session, kind, [Pending(account_id, to, subject_key, message, link)], now=now) == 1


def recipients(session: Session, account_ids: Iterable[int]) -> dict[int, str]:
    """The e-mail of each active account among `account_ids` (removed accounts and accounts without one left out)."""
    ids = sorted(set(account_ids))
    if not ids:
        return {}
    return {
        account_id: email
        for account_id, email in session.execute(
            select(Account.id, Account.email).where(
                Account.id.in_(ids), Account.removed_at.is_(None), Account.email.is_not(None)
            )
        )
        if email
    }


def turned_off(session: Session, kind: str, account_ids: set[int]) -> set[int]:
    """Who among `account_ids` turned `kind` off (a kind that cannot be turned off: nobody)."""
    if not account_ids or not rules.can_turn_off(kind):
        return set()
    return set(
        session.execute(
            select(NotificationOptOut.account_id).where(
                NotificationOptOut.kind == kind, NotificationOptOut.account_id.in_(sorted(account_ids))
            )
        ).scalars()
    )
