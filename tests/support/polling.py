"""Waiting for a condition instead of for a time: read again until what the test needs is there.

The one place a test helper sleeps between two reads (tests/unit/test_no_fixed_waits.py allows it
here): a wait ends as soon as the condition holds, and only a condition that never holds takes the
whole timeout."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def polled(read: Callable[[], T], done: Callable[[T], bool], *, timeout: float, every: float = 0.1) -> T:
    """`read()` again every `every` seconds until `done` holds of what it returned, or `timeout` seconds
    have passed: the last value read either way (the caller asserts on it, with its own message)."""
    deadline = time.monotonic() + timeout
    while True:
        value = read()
        if done(value) or time.monotonic() > deadline:
            return value
        time.sleep(every)
