"""The signals recorded while a test is taken (issue 36), kept with the draft and stored on the review
(Review.signals): a flat JSON object of "<name>:<part>" -> number. The contract with the flag rules
(portal/domain/quality) is in docs/decisions.md, 'Signals recorded while a test is taken'.

Measured on the server (the states, portal/states/taking): "question:<key>" (a survey question),
"step:choose" / "step:answer" (a preference test), "block:<block>" and "precheck:<page>" (highlight,
pricing), "scroll:<page>" (percent). Measured in the browser (assets/portal.js) and sent with the
answer events the page already sends: "typing:<key>", "leaves:<key>", "away:<key>" of a free-text
answer, checked here (`merge_measured`): bad input is dropped, never raised.

Pure functions: no I/O. A missing key means "not measured", never 0.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

MAX_SECONDS = 24 * 3600  # a counter of seconds never grows past a day
MAX_LEAVES = 10_000
# The signals live in the draft's position (whose limit is 20,000 bytes with the answers' sequence
# numbers) and on the review (the same limit): a new key is not added past this many bytes.
MAX_BYTES = 8_000
MAX_MEASURED = 300  # entries of one browser report read at most
BROWSER_NAMES = ("typing", "leaves", "away")
COUNTS = frozenset({"leaves"})


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


def _tenth(seconds: float) -> float:
    return min(float(MAX_SECONDS), round(max(0.0, seconds), 1))


def size(signals: Mapping[str, Any]) -> int:
    return len(json.dumps(signals, separators=(",", ":")))


def _put(signals: dict[str, Any], name: str, value: float | int) -> dict[str, Any]:
    """signals with `name` set: an existing key always, a new one only within MAX_BYTES."""
    if name not in signals and size(signals) + len(json.dumps(name)) + len(json.dumps(value)) + 2 > MAX_BYTES:
        return signals
    return {**signals, name: value}


def add_seconds(signals: Mapping[str, Any], name: str, seconds: Any) -> dict[str, Any]:
    """signals with `seconds` added to the counter `name` (rounded to 0.1 s, capped at a day)."""
    kept = dict(signals)
    spent = _number(seconds)
    if spent is None:
        return kept
    before = _number(kept.get(name)) or 0.0
    return _put(kept, name, _tenth(before + max(0.0, spent)))


def clean(value: Any) -> dict[str, Any]:
    """Signals read back from a draft position or a browser's copy: string keys, finite numbers
    within their bounds (anything else dropped), within MAX_BYTES."""
    kept: dict[str, Any] = {}
    if not isinstance(value, dict):
        return kept
    for name, raw in list(value.items())[:MAX_MEASURED]:
        number = _number(raw)
        if not isinstance(name, str) or len(name) > 220 or ":" not in name or number is None or number < 0:
            continue
        kept = _put(kept, name, min(MAX_LEAVES, int(number)) if name.split(":", 1)[0] in COUNTS else _tenth(number))
    return kept


def merged(older: Mapping[str, Any], newer: Mapping[str, Any]) -> dict[str, Any]:
    """Two readings of the same session's signals (every one only grows): the larger of each."""
    kept = dict(older)
    for name, value in newer.items():
        before = _number(kept.get(name))
        if before is None or (_number(value) or 0.0) > before:
            kept = _put(kept, name, value)
    return kept


def merge_measured(signals: Mapping[str, Any], measured: Any, parts: Mapping[str, str]) -> dict[str, Any]:
    """The browser's measures of the free-text answers ({"typing:<key>": seconds, "leaves:<key>": count,
    "away:<key>": seconds}, totals since the answer was first shown in this browser) merged in:
    `parts` maps the answer keys the page may name (this test's questions) to the signal's part
    (a highlight question's is "<block>.<key>"). Unknown names and keys, non-numbers and negative
    values are dropped; values are capped. A total never goes down (a report from a fresh tab
    counts from 0 again, and a report replayed late is older)."""
    if not isinstance(measured, dict):
        return dict(signals)
    found: dict[str, Any] = {}
    for name, raw in list(measured.items())[:MAX_MEASURED]:
        if not isinstance(name, str) or ":" not in name:
            continue
        kind, key = name.split(":", 1)
        number = _number(raw)
        if kind not in BROWSER_NAMES or key not in parts or number is None or number < 0:
            continue
        found[f"{kind}:{parts[key]}"] = min(MAX_LEAVES, int(number)) if kind in COUNTS else _tenth(number)
    return merged(signals, found) if found else dict(signals)
