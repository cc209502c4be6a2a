"""The signals recorded while a test is taken (portal/domain/taking/signals.py): seconds to 0.1 s,
the byte cap, reading a draft's copy back, and the browser's measures checked (bad input dropped)."""

from __future__ import annotations

import math

from portal.domain.taking import signals as sig


def test_seconds_add_up_to_a_tenth_and_stay_within_a_day():
    got = sig.add_seconds(sig.add_seconds({}, "question:q1", 2.44), "question:q1", 3.61)
    assert got == {"question:q1": 6.0}  # 2.4, then 6.01
    assert sig.add_seconds({}, "question:q1", -5) == {"question:q1": 0.0}
    assert sig.add_seconds({}, "step:choose", 10**9) == {"step:choose": float(sig.MAX_SECONDS)}
    assert sig.add_seconds({"x:y": 1}, "x:y", math.nan) == {"x:y": 1}
    assert sig.add_seconds({"x:y": "junk"}, "x:y", 1.0) == {"x:y": 1.0}  # a bad stored value starts again


def test_a_new_key_is_not_added_past_the_byte_limit_but_known_ones_still_grow():
    signals: dict = {}
    for i in range(2_000):
        signals = sig.add_seconds(signals, f"question:{'k' * 60}{i}", 1.0)
    assert sig.size(signals) <= sig.MAX_BYTES
    first = next(iter(signals))
    assert sig.add_seconds(signals, first, 2.0)[first] == 3.0
    new = "question:" + "n" * 90
    assert new not in sig.add_seconds(signals, new, 2.0)


def test_a_draft_s_signals_are_read_back_clean():
    raw = {"question:a": 3.25, "leaves:a": 2.9, "bad": 1, "question:b": "3", "question:c": -1, 5: 1, "x:t": True}
    assert sig.clean(raw) == {"question:a": 3.2, "leaves:a": 2}
    assert sig.clean(None) == {} and sig.clean([1]) == {}


def test_merging_keeps_the_larger_reading_of_each_signal():
    assert sig.merged({"a:x": 5, "a:y": 1}, {"a:x": 3, "a:y": 2, "a:z": 1}) == {"a:x": 5, "a:y": 2, "a:z": 1}


def test_the_browser_s_measures_are_checked_and_named_by_their_part():
    parts = {"q1": "q1", "why": "first-impression.why"}
    measured = {
        "typing:q1": 12.34,
        "leaves:q1": 2,
        "away:q1": 7.06,
        "typing:why": 4,
        "typing:other": 3,  # not a question of this test
        "speed:q1": 3,  # not a browser measure
        "away:q1x": 1,
        "leaves:why": -1,
        "typing": 1,
        3: 4,
        "away:why": "9",
        "leaves:q1 ": 1,
    }
    got = sig.merge_measured({"question:q1": 30.0}, measured, parts)
    assert got == {
        "question:q1": 30.0,
        "typing:q1": 12.3,
        "leaves:q1": 2,
        "away:q1": 7.1,
        "typing:first-impression.why": 4.0,
    }
    # a report from a fresh tab (counting from 0 again) never lowers a total
    assert sig.merge_measured(got, {"leaves:q1": 1, "typing:q1": 20}, parts)["leaves:q1"] == 2
    assert sig.merge_measured(got, {"leaves:q1": 1, "typing:q1": 20}, parts)["typing:q1"] == 20.0
    assert sig.merge_measured(got, {"leaves:q1": 10**9}, parts)["leaves:q1"] == sig.MAX_LEAVES
    for junk in (None, "{}", [], 5, {"typing:q1": float("inf")}, {"typing:q1": None}):
        assert sig.merge_measured(got, junk, parts) == got
