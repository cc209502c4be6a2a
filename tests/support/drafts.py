"""Waiting for a participant's server draft instead of sleeping: drafts are written behind the
browser's events, so a test that restarts the backend or reloads waits for the stored row to show
the change (the state marker), not for a fixed time."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from sqlmodel import select

from portal.models import ReviewSession


def wait_for_draft(app_server: Any, account_id: int, done: Callable[[ReviewSession], bool], *,
                   timeout: float = 15.0) -> ReviewSession:
    """The participant's review session once `done(row)` holds (its draft_answers, draft_position)."""
    deadline = time.monotonic() + timeout
    with app_server.db() as db:
        while True:
            db.expire_all()
            row = db.exec(select(ReviewSession).where(ReviewSession.account_id == account_id)
                          .order_by(ReviewSession.id.desc())).first()
            if row is not None and done(row):
                return row
            if time.monotonic() > deadline:
                raise AssertionError(f"the server draft did not get there in {timeout} s: "
                                     f"{row.draft_answers if row else None} {row.draft_position if row else None}")
            time.sleep(0.1)


def answer_of(row: ReviewSession, key: str) -> Any:
    """The stored value of one answer (None when absent)."""
    answer = row.draft_answers.get(key)
    return answer.get("value") if isinstance(answer, dict) else answer
