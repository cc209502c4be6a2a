"""Account settings (issue 40, item 1): change the password, see where the account is signed in, sign a device out.

Every function takes the caller's session token, never an account id from the browser: the account is the token's,
and a session to sign out must be one of that account's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session, col, select, update

from portal.domain import account_settings as rules
from portal.domain import devices, emails
from portal.domain import password_policy as policy
from portal.domain import password_reset as reset_rules
from portal.domain.passwords_hashing import DUMMY_HASH, hash_password, verify_password
from portal.models import Account, AuthSession
from portal.models._base import utcnow
from portal.services import throttle
from portal.services.errors import ServiceError, ThrottledError
from portal.services.outbox import enqueue_email
from portal.services.password_reset import PasswordRulesError
from portal.services.sessions import live_session
from portal.settings import settings


class NotSignedIn(ServiceError):
    def __init__(self) -> None:
        super().__init__("Please sign in again.", field="_global")


@dataclass(frozen=True)
class SignedInSession:
    id: int
    device: str
    mobile: bool
    place: str
    ip_address: str
    signed_in_at: datetime
    last_used_at: datetime
    current: bool


def _caller(session: Session, token: str | None) -> tuple[AuthSession, Account]:
    row = live_session(session, token=token)
    account = session.get(Account, row.account_id) if row is not None else None
    if row is None or account is None or account.removed_at is not None:
        raise NotSignedIn()
    return row, account


def has_password(session: Session, *, token: str | None) -> bool:
    _row, account = _caller(session, token)
    return bool(account.password_hash)


def _wrong_key(account_id: int) -> str:
    return f"change-password:{account_id}"


def change_password(
    session: Session,
    *,
    token: str | None,
    current_password: str | None,
    password: str | None,
    confirm_password: str | None,
) -> None:
    """Set a new password after the current one: the spec's rules, not the current one again; every other session
    of the account ends and an e-mail tells the owner. A wrong current password is recorded (the caller commits
    even then) and after MAX_WRONG_CURRENT the form waits."""
    here, account = _caller(session, token)
    if not account.password_hash:
        raise ServiceError(rules.NO_PASSWORD, field="_global")
    key = _wrong_key(account.id)
    wait = throttle.seconds_blocked(
        session=session, keys_and_limits=[(key, rules.MAX_WRONG_CURRENT)], window_seconds=settings.login_window_seconds
    )
    if wait:
        minutes = max(1, math.ceil(wait / 60))
        raise ThrottledError(rules.TOO_MANY_WRONG.format(minutes=minutes), field=rules.CURRENT_FIELD)
    current = policy.normalize(current_password if isinstance(current_password, str) else "")
    if not current:
        raise ServiceError(rules.CURRENT_REQUIRED, field=rules.CURRENT_FIELD)
    matches, _ = verify_password(current[: policy.MAX_LENGTH + 64], account.password_hash or DUMMY_HASH)
    if not matches:
        throttle.record_failure(session=session, keys=[key])
        raise ServiceError(rules.CURRENT_WRONG, field=rules.CURRENT_FIELD)

    errors = policy.validate(password, confirm_password)
    if errors:
        raise PasswordRulesError(errors)
    new_password = policy.normalize(password)
    if new_password == current:
        raise PasswordRulesError(
            {policy.PASSWORD_FIELD: policy.PASSWORD_DUPLICATED}, {policy.PASSWORD_FIELD: policy.DUPLICATED_CODE}
        )
    now = utcnow()
    # Exactly once under concurrent changes: only the request that still sees the old hash writes.
    changed = session.exec(
        update(Account)
        .where(col(Account.id) == account.id, col(Account.password_hash) == account.password_hash)
        .values(password_hash=hash_password(new_password), password_changed_at=now, updated_at=now)
    )
    if changed.rowcount != 1:
        raise ServiceError(rules.CURRENT_WRONG, field=rules.CURRENT_FIELD)
    _end_others(session, account_id=account.id, keep_id=here.id, now=now)
    throttle.clear(session=session, key=key)
    if account.email:
        mail = emails.password_changed(
            brand=settings.brand_name,
            forgot_link=f"{settings.base_url}{reset_rules.FORGOT_PATH}",
            kept_this_device=True,
        )
        enqueue_email(session=session, to=account.email, subject=mail.subject, body=mail.body, kind="password-changed")


def _end_others(session: Session, *, account_id: int, keep_id: int, now: datetime) -> int:
    result = session.exec(
        update(AuthSession)
        .where(
            col(AuthSession.account_id) == account_id,
            col(AuthSession.id) != keep_id,
            col(AuthSession.revoked_at).is_(None),
        )
        .values(revoked_at=now)
    )
    return int(result.rowcount or 0)


def signed_in_sessions(session: Session, *, token: str | None) -> list[SignedInSession]:
    """The account's live sessions, this one first, then by last use."""
    here, account = _caller(session, token)
    now = utcnow()
    rows = session.exec(
        select(AuthSession).where(
            col(AuthSession.account_id) == account.id,
            col(AuthSession.revoked_at).is_(None),
            col(AuthSession.idle_expires_at) > now,
            col(AuthSession.absolute_expires_at) > now,
        )
    ).all()
    found = [
        SignedInSession(
            id=row.id,
            device=devices.describe(row.user_agent),
            mobile=devices.is_mobile(row.user_agent),
            place=devices.place(row.ip_address),
            ip_address=row.ip_address or "",
            signed_in_at=row.created_at,
            last_used_at=row.last_seen_at,
            current=row.id == here.id,
        )
        for row in rows
    ]
    return sorted(found, key=lambda s: (not s.current, -s.last_used_at.timestamp(), -s.id))


def sign_out_session(session: Session, *, token: str | None, session_id: object) -> None:
    """End one of the caller's other sessions. Another account's session, an ended one or a made-up id: refused
    alike, and nothing changes."""
    here, account = _caller(session, token)
    if not isinstance(session_id, int) or isinstance(session_id, bool) or session_id == here.id:
        raise ServiceError(rules.SESSION_GONE, field="_global")
    ended = session.exec(
        update(AuthSession)
        .where(
            col(AuthSession.id) == session_id,
            col(AuthSession.account_id) == account.id,
            col(AuthSession.revoked_at).is_(None),
        )
        .values(revoked_at=utcnow())
    )
    if ended.rowcount != 1:
        raise ServiceError(rules.SESSION_GONE, field="_global")


def sign_out_others(session: Session, *, token: str | None) -> int:
    """End every session of the caller's account but this one; the number ended."""
    here, account = _caller(session, token)
    return _end_others(session, account_id=account.id, keep_id=here.id, now=utcnow())
