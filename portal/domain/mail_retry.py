"""Backoff between delivery attempts of one e-mail."""

from __future__ import annotations

from datetime import timedelta

BASE_DELAY_SECONDS = 30
MAX_DELAY_SECONDS = 3600


def next_delay(attempts: int) -> timedelta:
    """30 s, 60 s, 2 min, 4 min ... capped at one hour, after `attempts` failed tries."""
    return timedelta(seconds=min(BASE_DELAY_SECONDS * 2 ** max(attempts - 1, 0), MAX_DELAY_SECONDS))
