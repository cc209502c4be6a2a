"""The scheduled launch: a test set to 'scheduled' starts running at its time (Test.scheduled_at, UTC).

Runs in every backend worker (a lifespan task, every EVERY_SECONDS); each test is launched by one write that
expects it still scheduled and due (`UPDATE test SET status='running' ... WHERE status='scheduled' AND
scheduled_at <= now`, portal/services/transitions.py), so workers or machines running it at once launch each
test once, with one audit row. `python -m portal.cli launch-scheduled` runs one round.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime

from sqlalchemy import func
from sqlmodel import Session

from portal import db
from portal.models import Test
from portal.models._base import utcnow
from portal.services import transitions
from portal.services.admin import audit

log = logging.getLogger(__name__)
EVERY_SECONDS = 30


def launch_scheduled(session: Session, *, now: datetime | None = None) -> list[int]:
    """Start every scheduled test whose time has come: running, launched now (day 1 of the incentive table
    starts); the ids this round launched (none that another round launched first)."""
    now = now or utcnow()
    launched = transitions.move(
        session,
        Test,
        Test.status == "scheduled",
        Test.scheduled_at.is_not(None),
        Test.scheduled_at <= now,
        values={"status": "running", "launched_at": func.coalesce(Test.launched_at, now), "updated_at": now},
    )
    for test_id in launched:
        audit.record(
            session,
            audit.SYSTEM,
            "test.launch",
            "test",
            test_id,
            before={"status": "scheduled"},
            after={"status": "running", "launchedAt": now},
        )
    return launched


async def run_forever() -> None:
    while True:
        try:
            launched = await db.run(launch_scheduled)
            if launched:
                log.info("launched %d scheduled tests: %s", len(launched), launched)
        except asyncio.CancelledError:
            raise
        except Exception:  # keep the job alive whatever one round hits
            log.exception("launching scheduled tests failed")
        await asyncio.sleep(EVERY_SECONDS)
