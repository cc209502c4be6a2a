"""Waiting for a participant's server draft instead of sleeping: drafts are written behind the
browser's events, so a test that restarts the backend or reloads waits for the stored row to show
the change (the state marker), not for a fixed time."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlmodel import select

from portal.models import ReviewSession
from tests.support.polling import polled


def wait_for_draft(
    app_server: Any, account_id: int, done: Callable[[ReviewSession], bool], *, timeout: float = 15.0
) -> ReviewSession:
    """The participant's review session once `done(row)` holds (its draft_answers, draft_position)."""
    with app_server.db() as db:

        def latest() -> ReviewSession | None:
            db.expire_all()
            return db.exec(
                select(ReviewSession).where(ReviewSession.account_id == account_id).order_by(ReviewSession.id.desc())
            ).first()

        row = polled(latest, lambda found: found is not None and done(found), timeout=timeout)
        if row is None or not done(row):
            raise AssertionError(
                f"the server draft did not get there in {timeout} s: "
                f"{row.draft_answers if row else None} {row.draft_position if row else None}"
            )
        return row


def answer_of(row: ReviewSession, key: str) -> Any:
    """The stored value of one answer (None when absent)."""
    answer = row.draft_answers.get(key)
    return answer.get("value") if isinstance(answer, dict) else answer
