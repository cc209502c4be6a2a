"""portal/gc_tuning.py: start-up's objects leave the collector's walks; young collections are rarer."""

from __future__ import annotations

import gc

from portal import gc_tuning


def test_settle_heap_freezes_what_is_alive_and_raises_the_young_threshold():
    before = gc.get_threshold()
    kept = [[i] for i in range(1_000)]  # alive now: frozen with the rest
    try:
        gc_tuning.settle_heap()
        assert gc.get_freeze_count() > len(kept)
        assert gc.get_threshold() == (gc_tuning.YOUNG_THRESHOLD, before[1], before[2])
        # What is made afterwards is still collected.
        cycle: list = []
        cycle.append(cycle)
        del cycle
        assert gc.collect() >= 1
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
