"""Server-side sessions: create on sign-in, resolve per event, revoke on sign-out or reset."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy import bindparam
from sqlalchemy.orm import InstrumentedAttribute
from sqlmodel import Session, select, update

from portal.domain.accounts import CurrentUser
from portal.models import Account, AuthSession, ParticipantProfile
from portal.models._base import utcnow
from portal.services.tokens import hash_token, looks_like_token, new_token
from portal.settings import settings

# last_seen_at is written at most this often, so reading a session is not a write per event.
_TOUCH_EVERY = timedelta(minutes=1)


def create_session(session: Session, *, account_id: int, user_agent: str = "", ip_address: str = "") -> str:
    """Start a session for the account and return the opaque token for the cookie."""
    token = new_token()
    now = utcnow()
    session.add(
        AuthSession(
            token_hash=hash_token(token),
            account_id=account_id,
            created_at=now,
            last_seen_at=now,
            idle_expires_at=now + timedelta(minutes=settings.session_idle_minutes),
            absolute_expires_at=now + timedelta(days=settings.session_absolute_days),
            user_agent=(user_agent or "")[:512],
            ip_address=(ip_address or "")[:64],
        )
    )
    return token


def live_session(session: Session, *, token: str | None) -> AuthSession | None:
    """The live session row behind a token (not touched), or None."""
    return _live_session(session, token, utcnow())


def _live_session(session: Session, token: str | None, now: datetime) -> AuthSession | None:
    if not looks_like_token(token):
        return None
    row = session.exec(select(AuthSession).where(AuthSession.token_hash == hash_token(token))).first()
    if row is None or row.revoked_at is not None:
        return None
    if now >= row.idle_expires_at or now >= row.absolute_expires_at:
        return None
    return row


def _touch(session: Session, row: Any, now: datetime) -> None:
    """Extend the idle expiry, written at most every _TOUCH_EVERY (`row`: the session's columns)."""
    if now - row.last_seen_at >= _TOUCH_EVERY:
        session.execute(
            update(AuthSession)
            .where(AuthSession.id == row.id)
            .values(
                last_seen_at=now,
                idle_expires_at=min(now + timedelta(minutes=settings.session_idle_minutes), row.absolute_expires_at),
            )
        )


def _live(row: Any, now: datetime) -> bool:
    return row is not None and row.revoked_at is None and now < row.idle_expires_at and now < row.absolute_expires_at


# A session token's session, with its account's (and for a user, the profile's) columns: one statement
# each, built once and run with the token's hash. Columns, not rows as objects: every event of every tab
# resolves its token, and building three full rows (the profile has some thirty columns) cost more than
# the query. (SQLAlchemy's select: SQLModel's is typed for at most four columns.)
_SESSION: tuple[InstrumentedAttribute[Any], ...] = (
    AuthSession.id,
    AuthSession.account_id,
    AuthSession.revoked_at,
    AuthSession.idle_expires_at,
    AuthSession.absolute_expires_at,
    AuthSession.last_seen_at,
    Account.removed_at,
)
_BY_TOKEN = AuthSession.token_hash == bindparam("token_hash")
_USER = (
    sa.select(
        *_SESSION,
        Account.email,
        Account.work_email,
        Account.is_registration_complete,
        Account.email_verified_at,
        Account.work_email_verified_at,
        Account.verified,
        Account.stage,
        Account.staff_role,
        ParticipantProfile.first_name,
        ParticipantProfile.last_name,
    )
    .join(Account, Account.id == AuthSession.account_id)
    .outerjoin(ParticipantProfile, ParticipantProfile.account_id == Account.id)
    .where(_BY_TOKEN)
)
_OWNER = sa.select(*_SESSION).join(Account, Account.id == AuthSession.account_id).where(_BY_TOKEN)


def _live_row(session: Session, statement: Any, token: str | None, now: datetime) -> Any:
    """The columns of `statement` for a live session of a live account (touched), else None."""
    if not looks_like_token(token):
        return None
    row = session.execute(statement, {"token_hash": hash_token(token)}).first()
    if row is None or not _live(row, now) or row.removed_at is not None:
        return None
    _touch(session, row, now)
    return row


def resolve_user(session: Session, *, token: str | None) -> CurrentUser | None:
    """The user behind a session token, or None if the token is unknown, expired, revoked or malformed:
    one query (the session, its account and the profile)."""
    row = _live_row(session, _USER, token, utcnow())
    if row is None:
        return None
    return CurrentUser(
        account_id=row.account_id,
        email=row.email or "",
        work_email=row.work_email or "",
        first_name=row.first_name or "",
        last_name=row.last_name or "",
        is_registration_complete=row.is_registration_complete,
        is_email_verified=row.email_verified_at is not None,
        is_work_email_verified=row.work_email_verified_at is not None,
        verified=row.verified,
        stage=row.stage,
        staff_role=row.staff_role,
    )


def live_account_id(session: Session, *, token: str | None) -> int | None:
    """The account behind a live session token (resolve_user's rule, touch included), in one query
    without the profile: for the tab-owner check."""
    row = _live_row(session, _OWNER, token, utcnow())
    return row.account_id if row is not None else None


def revoke_session(session: Session, *, token: str | None) -> bool:
    now = utcnow()
    row = _live_session(session, token, now)
    if row is None:
        return False
    row.revoked_at = now
    session.add(row)
    return True


def revoke_all_sessions(session: Session, *, account_id: int) -> None:
    """End every session of an account (after a password reset)."""
    session.exec(
        update(AuthSession)
        .where(AuthSession.account_id == account_id, AuthSession.revoked_at.is_(None))
        .values(revoked_at=utcnow())
    )
