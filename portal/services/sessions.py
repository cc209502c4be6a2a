"""Server-side sessions: create on sign-in, resolve per event, revoke on sign-out or reset."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlmodel import Session, select, update

from portal.domain.accounts import CurrentUser
from portal.models import Account, AuthSession, ParticipantProfile
from portal.models._base import utcnow
from portal.services.tokens import hash_token, looks_like_token, new_token
from portal.settings import settings

# last_seen_at is written at most this often, so reading a session is not a write per event.
_TOUCH_EVERY = timedelta(minutes=1)


def create_session(*, session: Session, account_id: int, user_agent: str = "", ip_address: str = "") -> str:
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


def _live_session(session: Session, token: str | None, now: datetime) -> AuthSession | None:
    if not looks_like_token(token):
        return None
    row = session.exec(select(AuthSession).where(AuthSession.token_hash == hash_token(token))).first()
    if row is None or row.revoked_at is not None:
        return None
    if now >= row.idle_expires_at or now >= row.absolute_expires_at:
        return None
    return row


def _touch(session: Session, row: AuthSession, now: datetime) -> None:
    """Extend the idle expiry, written at most every _TOUCH_EVERY."""
    if now - row.last_seen_at >= _TOUCH_EVERY:
        row.last_seen_at = now
        row.idle_expires_at = min(now + timedelta(minutes=settings.session_idle_minutes), row.absolute_expires_at)
        session.add(row)


def _live(row: AuthSession | None, now: datetime) -> bool:
    return (row is not None and row.revoked_at is None
            and now < row.idle_expires_at and now < row.absolute_expires_at)


def resolve_user(*, session: Session, token: str | None, keep: list | None = None) -> CurrentUser | None:
    """The user behind a session token, or None if the token is unknown, expired, revoked or malformed.

    One query (the session, its account and the profile). `keep`: a list the caller holds for the
    transaction, given the account and profile rows, so the session's (weak) identity map serves a
    later `session.get` of them in the same transaction without reading them again."""
    if not looks_like_token(token):
        return None
    now = utcnow()
    found = session.exec(
        select(AuthSession, Account, ParticipantProfile)
        .join(Account, Account.id == AuthSession.account_id)
        .outerjoin(ParticipantProfile, ParticipantProfile.account_id == Account.id)
        .where(AuthSession.token_hash == hash_token(token))
    ).first()
    if found is None:
        return None
    row, account, profile = found
    if not _live(row, now) or account.removed_at is not None:
        return None
    _touch(session, row, now)
    if keep is not None:
        keep.extend((account, profile))
    return CurrentUser(
        account_id=account.id,
        email=account.email or "",
        work_email=account.work_email or "",
        first_name=(profile.first_name if profile else None) or "",
        last_name=(profile.last_name if profile else None) or "",
        is_registration_complete=account.is_registration_complete,
        is_email_verified=account.email_verified_at is not None,
        is_work_email_verified=account.work_email_verified_at is not None,
        verified=account.verified,
        stage=account.stage,
        staff_role=account.staff_role,
    )


def live_account_id(*, session: Session, token: str | None) -> int | None:
    """The account behind a live session token (resolve_user's rule, touch included), in one query
    without the profile: for the tab-owner check."""
    if not looks_like_token(token):
        return None
    now = utcnow()
    found = session.exec(
        select(AuthSession, Account.removed_at)
        .join(Account, Account.id == AuthSession.account_id)
        .where(AuthSession.token_hash == hash_token(token))
    ).first()
    if found is None:
        return None
    row, removed_at = found
    if not _live(row, now) or removed_at is not None:
        return None
    _touch(session, row, now)
    return row.account_id


def revoke_session(*, session: Session, token: str | None) -> bool:
    now = utcnow()
    row = _live_session(session, token, now)
    if row is None:
        return False
    row.revoked_at = now
    session.add(row)
    return True


def revoke_all_sessions(*, session: Session, account_id: int) -> None:
    """End every session of an account (after a password reset)."""
    session.exec(
        update(AuthSession)
        .where(AuthSession.account_id == account_id, AuthSession.revoked_at.is_(None))
        .values(revoked_at=utcnow())
    )
