"""The server draft, written behind: every answer is queued here and written in batches.

Writing the draft in the answer event (resolve the user, read the test and the session, update
it: six statements in a worker thread) made an answer cost 8-10 times a no-op event and capped one
worker at 45-65 answers a second (bench/README.md, "Where an answer's time goes"). Instead the
survey state queues the newest draft of each session here, and one task per process writes what is
queued every FLUSH_SECONDS in one transaction, one UPDATE per session.

Nothing is lost by waiting: the browser keeps every answer in local storage at once and gives
it back on the next load when it is newer than the server's draft; on shutdown the queue is
written before the process ends. The write itself still refuses a draft for a session that is no
longer active or whose deadline (plus the grace) has passed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import bindparam, update
from sqlmodel import Session

from portal import db
from portal.models import ReviewSession
from portal.services.taking.review_sessions import GRACE_SECONDS

log = logging.getLogger(__name__)

FLUSH_SECONDS = 0.5


@dataclass(frozen=True)
class Draft:
    session_id: int
    # Whose session it is ('account:<id>' or a public respondent's key): a draft is written only to
    # a session of that respondent, so a tab that names someone else's session id writes nothing.
    respondent_key: str
    answers: dict[str, Any]
    position: dict[str, Any]


def write_drafts(session: Session, *, drafts: Iterable[Draft], now: datetime | None = None) -> int:
    """Write the drafts (one UPDATE each, in one transaction); returns how many sessions took theirs.

    A draft is written only to a session of its respondent, while the session is active and its
    deadline plus the grace has not passed."""
    now = now or datetime.now(UTC)
    rows = [
        {"sid": d.session_id, "key": d.respondent_key, "answers": d.answers, "position": d.position} for d in drafts
    ]
    if not rows:
        return 0
    stmt = (
        update(ReviewSession)
        .where(
            ReviewSession.id == bindparam("sid"),
            ReviewSession.respondent_key == bindparam("key"),
            ReviewSession.status == "active",
            ReviewSession.deadline_at >= now - timedelta(seconds=GRACE_SECONDS),
        )
        .values(draft_answers=bindparam("answers"), draft_position=bindparam("position"), updated_at=now)
        .execution_options(synchronize_session=False)
    )
    result = session.connection().execute(stmt, rows)
    return result.rowcount if result.rowcount is not None and result.rowcount >= 0 else len(rows)


class DraftWriter:
    """The newest queued draft of each review session of this process, written every FLUSH_SECONDS."""

    def __init__(self, interval: float = FLUSH_SECONDS) -> None:
        self.interval = interval
        self._pending: dict[int, Draft] = {}
        self._task: asyncio.Task[None] | None = None

    def put(self, draft: Draft) -> None:
        self._pending[draft.session_id] = draft
        if self._task is None or self._task.done():
            try:
                self._task = asyncio.get_running_loop().create_task(self._run())
            except RuntimeError:  # no event loop (a script): write at once
                self._pending.pop(draft.session_id)
                with db.session_scope() as session:
                    write_drafts(session=session, drafts=[draft])

    def discard(self, session_id: int) -> None:
        """The session was submitted or cleared: its queued draft must not be written."""
        self._pending.pop(session_id, None)

    def pending(self, session_id: int) -> Draft | None:
        return self._pending.get(session_id)

    async def flush(self) -> None:
        batch, self._pending = self._pending, {}
        if not batch:
            return
        try:
            await db.run(write_drafts, drafts=list(batch.values()))
        except Exception:  # noqa: BLE001 - keep the drafts for the next round, log the cause
            log.exception("writing %d survey drafts failed; kept for the next round", len(batch))
            for session_id, draft in batch.items():
                self._pending.setdefault(session_id, draft)

    async def _run(self) -> None:
        while self._pending:
            await asyncio.sleep(self.interval)
            await self.flush()

    @contextlib.asynccontextmanager
    async def lifespan(self) -> AsyncIterator[None]:
        """App lifespan: whatever is queued when the process stops is written before it ends."""
        try:
            yield
        finally:
            await self.flush()


writer = DraftWriter()
