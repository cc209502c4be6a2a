"""Throttled events (failed sign-ins, reset requests, e-mails sent), counted per key in `login_attempt`."""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime, timedelta

from sqlmodel import Session, col, delete, select

from portal.domain.throttling import Limit, longest_wait
from portal.models import LoginAttempt
from portal.models._base import utcnow


def seconds_blocked(session: Session, *, keys_and_limits: list[tuple[str, int]], window_seconds: int) -> int:
    """The longest wait any of the keys imposes right now (0 = allowed), all in one window."""
    return seconds_to_wait(
        session=session, limits=[Limit(key, limit, window_seconds) for key, limit in keys_and_limits]
    )


def seconds_to_wait(session: Session, *, limits: list[Limit], now: datetime | None = None) -> int:
    """The longest wait any of the limits (each with its own window) imposes right now (0 = allowed)."""
    now = now or utcnow()
    windows = [rule.window_seconds for rule in limits if rule.limit > 0 and rule.window_seconds > 0]
    if not windows:
        return 0
    rows = session.exec(
        select(LoginAttempt.key, LoginAttempt.created_at).where(
            col(LoginAttempt.key).in_({rule.key for rule in limits}),
            LoginAttempt.created_at > now - timedelta(seconds=max(windows)),
        )
    ).all()
    times: dict[str, list[datetime]] = defaultdict(list)
    for key, created_at in rows:
        times[key].append(created_at)
    return longest_wait(times, limits, now=now)


def record(session: Session, *, keys: list[str], now: datetime | None = None) -> None:
    """One event under each key."""
    now = now or utcnow()
    for key in keys:
        session.add(LoginAttempt(key=key, created_at=now))


def record_failure(session: Session, *, keys: list[str]) -> None:
    record(session=session, keys=keys)


def clear(session: Session, *, key: str) -> None:
    session.exec(delete(LoginAttempt).where(LoginAttempt.key == key))
