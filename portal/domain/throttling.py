"""Sign-in throttling rule: at most N failures per key within a sliding window."""

from __future__ import annotations

import math
from datetime import datetime, timedelta


def retry_after_seconds(failure_times: list[datetime], *, limit: int, window_seconds: int, now: datetime) -> int:
    """0 when another attempt is allowed, else the seconds until the oldest counted failure leaves the window.

    A blocked key is free again at most `window_seconds` after its failures stop, so an attacker
    cannot lock a victim out for longer than one window.
    """
    window = timedelta(seconds=window_seconds)
    recent = sorted(t for t in failure_times if now - t < window)
    if len(recent) < limit:
        return 0
    # The (len - limit + 1)-th oldest failure must leave the window before a new try is allowed.
    blocking = recent[len(recent) - limit]
    return max(1, math.ceil((blocking + window - now).total_seconds()))
