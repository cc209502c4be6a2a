"""Failed sign-in and reset attempts, counted per account and per client address."""

from __future__ import annotations

from datetime import timedelta

from sqlmodel import Session, delete, select

from portal.domain.throttling import retry_after_seconds
from portal.models import LoginAttempt
from portal.models._base import utcnow


def seconds_blocked(*, session: Session, keys_and_limits: list[tuple[str, int]], window_seconds: int) -> int:
    """The longest wait any of the keys imposes right now (0 = allowed)."""
    now = utcnow()
    since = now - timedelta(seconds=window_seconds)
    wait = 0
    for key, limit in keys_and_limits:
        times = session.exec(
            select(LoginAttempt.created_at).where(LoginAttempt.key == key, LoginAttempt.created_at > since)
        ).all()
        wait = max(wait, retry_after_seconds(list(times), limit=limit, window_seconds=window_seconds, now=now))
    return wait


def record_failure(*, session: Session, keys: list[str]) -> None:
    now = utcnow()
    for key in keys:
        session.add(LoginAttempt(key=key, created_at=now))


def clear(*, session: Session, key: str) -> None:
    session.exec(delete(LoginAttempt).where(LoginAttempt.key == key))
