"""Text messages, opt-in (issue 38, item 2): a participant's phone, its confirmation code, the kinds they get as
texts, the texts queued with a notification, and STOP.

Every call takes the account from the caller (the page's server-side session), never from the browser. A code is
rate-limited per account and per number (portal/domain/sms.py), stored as an HMAC, good for 10 minutes and 5 tries;
sending and confirming take the account's row lock, so two tabs cannot both pass a limit or a try.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import delete, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session

from portal.domain import notifications as notification_rules
from portal.domain import sms as rules
from portal.domain.throttling import longest_wait
from portal.models import Account, OutboxSms, PhoneContact, SmsOptIn
from portal.models._base import utcnow
from portal.services import row_locks
from portal.services.errors import ServiceError
from portal.settings import settings

HOUR = timedelta(hours=1)


def _aware(moment: datetime | None) -> datetime | None:
    """SQLite hands datetimes back without their zone: they are UTC."""
    return moment.replace(tzinfo=UTC) if moment is not None and moment.tzinfo is None else moment


def view(session: Session, *, account_id: int, now: datetime | None = None) -> dict[str, Any]:
    """The account's phone for the notifications page: the number, whether it is confirmed or stopped, whether a
    code waits, and the kinds that come as texts."""
    now = now or utcnow()
    contact = session.get(PhoneContact, account_id)
    kinds = sorted(session.execute(select(SmsOptIn.kind).where(SmsOptIn.account_id == account_id)).scalars())
    expires = _aware(contact.code_expires_at) if contact else None
    return {
        "available": settings.sms_active,
        "phone": rules.display_phone(contact.phone) if contact else "",
        "confirmed": bool(contact and contact.confirmed_at and not contact.stopped_at),
        "stopped": bool(contact and contact.stopped_at),
        "code_pending": bool(contact and contact.code_hash and expires and expires > now),
        "kinds": kinds,
    }


def _codes_sent(session: Session, account_id: int, phone: str, now: datetime) -> dict[str, list[datetime]]:
    since = now - HOUR
    mine = session.execute(
        select(OutboxSms.created_at).where(
            OutboxSms.account_id == account_id, OutboxSms.kind == rules.CODE_KIND, OutboxSms.created_at > since
        )
    ).scalars()
    theirs = session.execute(
        select(OutboxSms.created_at).where(
            OutboxSms.to_number == phone, OutboxSms.kind == rules.CODE_KIND, OutboxSms.created_at > since
        )
    ).scalars()
    return {
        f"account:{account_id}": [t for t in map(_aware, mine) if t is not None],
        f"phone:{phone}": [t for t in map(_aware, theirs) if t is not None],
    }


def send_code(session: Session, *, account_id: int, phone: Any, now: datetime | None = None) -> str:
    """Text a new code to `phone` for the account; the number as shown. ServiceError: why not (nothing changes)."""
    now = now or utcnow()
    if not settings.sms_active:
        raise ServiceError(rules.UNAVAILABLE, field="phone")
    number, problem = rules.normalize_phone(phone)
    if number is None:
        raise ServiceError(problem or rules.PHONE_INVALID, field="phone")
    if row_locks.locked(session, Account, account_id) is None:
        raise ServiceError(rules.UNAVAILABLE, field="phone")
    wait = longest_wait(_codes_sent(session, account_id, number, now), rules.code_limits(account_id, number), now=now)
    if wait:
        raise ServiceError(rules.wait_text(wait), field="phone")
    code = f"{secrets.randbelow(10**rules.CODE_DIGITS):0{rules.CODE_DIGITS}d}"
    contact = session.get(PhoneContact, account_id, populate_existing=True)
    if contact is None:
        contact = PhoneContact(account_id=account_id, phone=number)
    elif contact.phone != number:
        contact.phone, contact.confirmed_at = number, None
    contact.code_hash = rules.code_hash(settings.secret_key, account_id, code)
    contact.code_expires_at = now + rules.CODE_LIFETIME
    contact.code_tries = 0
    contact.updated_at = now
    session.add(contact)
    session.add(
        OutboxSms(
            account_id=account_id,
            to_number=number,
            body=rules.code_text(settings.brand_name, code),
            kind=rules.CODE_KIND,
            created_at=now,
            next_attempt_at=now,
        )
    )
    return rules.display_phone(number)


def confirm(session: Session, *, account_id: int, code: Any, now: datetime | None = None) -> str | None:
    """Confirm the account's number with `code`; None when confirmed, else the message. A wrong try is counted
    (and kept: this returns rather than raises, so the count is committed)."""
    now = now or utcnow()
    typed = rules.code_shape_ok(code)
    if typed is None:
        return rules.CODE_INVALID
    if row_locks.locked(session, Account, account_id) is None:
        return rules.NO_CODE
    contact = session.get(PhoneContact, account_id, populate_existing=True)
    if contact is None or not contact.code_hash:
        return rules.NO_CODE
    expires = _aware(contact.code_expires_at)
    if expires is None or expires <= now:
        return rules.CODE_EXPIRED
    if contact.code_tries >= rules.CODE_MAX_TRIES:
        return rules.CODE_TOO_MANY
    if not hmac.compare_digest(contact.code_hash, rules.code_hash(settings.secret_key, account_id, typed)):
        contact.code_tries += 1
        session.add(contact)
        return rules.CODE_TOO_MANY if contact.code_tries >= rules.CODE_MAX_TRIES else rules.CODE_WRONG
    contact.confirmed_at, contact.stopped_at = now, None
    contact.code_hash, contact.code_expires_at, contact.code_tries = None, None, 0
    contact.updated_at = now
    session.add(contact)
    return None


def set_kind(session: Session, *, account_id: int, kind: Any, on: Any) -> None:
    """Get `kind` as a text too, or not. Turning one on needs a confirmed number that did not reply STOP."""
    if not notification_rules.is_kind(kind) or not isinstance(on, bool):
        raise ServiceError("This notification cannot be changed.")
    if not on:
        session.execute(delete(SmsOptIn).where(SmsOptIn.account_id == account_id, SmsOptIn.kind == kind))
        return
    contact = session.get(PhoneContact, account_id)
    if contact is None or contact.confirmed_at is None or contact.stopped_at is not None:
        raise ServiceError(rules.NOT_CONFIRMED)
    make = postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert
    session.execute(
        make(SmsOptIn).values(account_id=account_id, kind=kind, created_at=utcnow()).on_conflict_do_nothing()
    )


def remove(session: Session, *, account_id: int) -> None:
    """Forget the account's number and its text choices; texts not sent yet to it are not sent."""
    contact = session.get(PhoneContact, account_id)
    session.execute(delete(SmsOptIn).where(SmsOptIn.account_id == account_id))
    if contact is None:
        return
    session.execute(
        update(OutboxSms)
        .where(OutboxSms.account_id == account_id, OutboxSms.sent_at.is_(None))
        .values(attempts=rules.SEND_MAX_ATTEMPTS, last_error="The number was removed.")
    )
    session.delete(contact)


def incoming(session: Session, *, sender: Any, body: Any, now: datetime | None = None) -> str | None:
    """An incoming text from `sender`: STOP stops every text to that number, START allows them again (for the
    accounts that confirmed it). 'stop', 'start' or None (another text: nothing changes)."""
    word = rules.keyword(body)
    number, _ = rules.normalize_phone(sender) if isinstance(sender, str) else (None, None)
    if word is None or number is None:
        return None
    stopped = (now or utcnow()) if word == "stop" else None
    session.execute(update(PhoneContact).where(PhoneContact.phone == number).values(stopped_at=stopped))
    if word == "stop":  # nothing more goes to that number: texts still waiting are dropped
        session.execute(
            update(OutboxSms)
            .where(OutboxSms.to_number == number, OutboxSms.sent_at.is_(None))
            .values(attempts=rules.SEND_MAX_ATTEMPTS, last_error="The number replied STOP.")
        )
    return word


def recipients(session: Session, kind: str, account_ids: Iterable[int]) -> dict[int, str]:
    """The confirmed, not stopped number of each account among `account_ids` that chose `kind` as a text."""
    ids = sorted(set(account_ids))
    if not ids or not settings.sms_active:
        return {}
    found = session.execute(
        select(PhoneContact.account_id, PhoneContact.phone)
        .join(SmsOptIn, SmsOptIn.account_id == PhoneContact.account_id)
        .where(
            SmsOptIn.kind == kind,
            PhoneContact.account_id.in_(ids),
            PhoneContact.confirmed_at.is_not(None),
            PhoneContact.stopped_at.is_(None),
        )
    )
    return {account_id: phone for account_id, phone in found}


def queue(session: Session, texts: list[dict[str, Any]]) -> None:
    """Texts for the sender, in one statement (notifications.send's chunk)."""
    if texts:
        session.execute(insert(OutboxSms), texts)
