"""Let time pass for the throttles: move recorded events into the past instead of sleeping."""

from __future__ import annotations

from datetime import timedelta

from sqlmodel import Session, col, select

from portal.models import LoginAttempt


def rewind(session: Session, *, seconds: float, prefix: str = "mail:") -> None:
    """Every recorded event whose key starts with `prefix` (the e-mail limits by default) happened
    `seconds` earlier than recorded: as if that much time had passed since."""
    session.commit()
    for row in session.exec(select(LoginAttempt).where(col(LoginAttempt.key).startswith(prefix))).all():
        row.created_at = row.created_at - timedelta(seconds=seconds)
        session.add(row)
    session.commit()
