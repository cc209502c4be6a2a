"""Garbage collection for a long-running worker (issue 18: answer p95 at 1,000 participants).

A worker's heap after start-up holds hundreds of thousands of objects that live as long as the
process (218,000 once the app module is imported, more once its pages are built): modules, the state
classes, every page's component tree, the validation tables. Python's full
(generation 2) collection walks all of them each time; measured under load (bench/trace, 1,000
participants, 2 workers) a full collection ran every 2-3 s and stopped the worker's event loop for
300-700 ms (up to 1.07 s): every event in flight waited, which was the answer p95 and p99.

At start-up (a lifespan task, so after the app and its pages are built in this process) the heap
is collected once and frozen: those objects move to a permanent generation that collections no
longer walk. What events create and drop (state objects with their parent/substate cycles) is
still collected as before. The young-generation threshold is raised so that objects of an event
that is waiting on Redis or the database are not promoted by a collection that runs mid-event.
"""

from __future__ import annotations

import gc
import logging

log = logging.getLogger(__name__)

# Allocations before a young collection (Python's default 700); the older generations' defaults stay.
YOUNG_THRESHOLD = 10_000


def settle_heap() -> None:
    """Collect what start-up left behind, freeze the rest, and raise the young threshold."""
    gc.collect()
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, middle, old)
    log.info("heap frozen after start-up: %d objects", gc.get_freeze_count())
