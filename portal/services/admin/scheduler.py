"""The scheduled staff job: approve reviews nobody decided in time (settings.auto_approve_days).

Runs in every backend worker once an hour (a lifespan task); each review is approved by a write that
expects it undecided (portal/services/transitions.py), so workers or machines running it at once approve
each review once, with one audit row.
`python -m portal.cli auto-approve-reviews` runs one round.
"""

from __future__ import annotations

import asyncio
import logging

from portal import db
from portal.services.admin.reviews import auto_approve

log = logging.getLogger(__name__)
EVERY_SECONDS = 3600


async def run_forever() -> None:
    while True:
        try:
            approved = await db.run(auto_approve)
            if approved:
                log.info("approved %d reviews automatically", approved)
        except asyncio.CancelledError:
            raise
        except Exception:  # keep the job alive whatever one round hits
            log.exception("automatic review approval failed")
        await asyncio.sleep(EVERY_SECONDS)
