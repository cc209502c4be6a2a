"""Throttling rule: at most N events (failed sign-ins, reset requests, e-mails sent) per key within a sliding window."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
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


@dataclass(frozen=True)
class Limit:
    """At most `limit` events under `key` within any `window_seconds`. A limit or window of 0 is off."""

    key: str
    limit: int
    window_seconds: int


def longest_wait(times_by_key: Mapping[str, Iterable[datetime]], limits: Iterable[Limit], *, now: datetime) -> int:
    """0 when every limit allows one more event now, else the seconds until all of them do."""
    return max(
        (
            retry_after_seconds(
                list(times_by_key.get(rule.key, ())), limit=rule.limit, window_seconds=rule.window_seconds, now=now
            )
            for rule in limits
            if rule.limit > 0 and rule.window_seconds > 0
        ),
        default=0,
    )
