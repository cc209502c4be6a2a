"""Versions of a test's definition: which columns a version holds, and what changed between two.

A test's definition (questions, options, pages and branching, screener, highlight areas and their
questions, concepts, texts, screenshots) is kept in numbered versions (portal/models/test.py,
TestVersion). A version holds the VERSIONED columns of the `test` row; the rest of the row (name, status,
panel, payout, quotas, duration, audience, schedule) is how the test is run, not what is asked, and is
not versioned: a change there applies to everyone at once.

Review sessions and reviews point at the version they were taken on; they are shown, exported and
validated against it.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# The `test` columns a version holds (the migration 0009 names the same ones).
VERSIONED: tuple[str, ...] = (
    "product_type",
    "survey",
    "questions",
    "selected_areas",
    "preference_test",
    "screener_question",
    "welcome_modal",
    "url",
    "screenshot_url",
    "pricing_url",
    "pricing_screenshot_url",
    "frame_of_mind",
    "is_surveys_conditional_enabled",
    "video_recorder_url",
)
# The definition document's fields a version holds (portal/domain/definition_document.py spells them).
VERSIONED_FIELDS: tuple[str, ...] = (
    "productType",
    "survey",
    "questions",
    "selectedAreas",
    "preferenceTest",
    "screenerQuestion",
    "welcomeModal",
    "url",
    "screenshotUrl",
    "pricingUrl",
    "pricingScreenshotUrl",
    "frameOfMind",
    "isSurveysConditionalEnabled",
    "videoTest",
)

PRODUCT_TYPE_FIXED = (
    "The product type cannot change once people have started this test. Duplicate the test to make one of another type."
)


def columns_of(values: Mapping[str, Any]) -> dict[str, Any]:
    """The versioned columns of a test row's values (`Test.model_dump()` or a version's own)."""
    return {name: copy.deepcopy(values.get(name)) for name in VERSIONED}


def same_columns(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Whether two sets of versioned columns say the same (missing and empty read alike)."""
    return all(_norm(a.get(name)) == _norm(b.get(name)) for name in VERSIONED)


def _norm(value: Any) -> Any:
    return None if value in (None, "", {}, []) else value


@dataclass(frozen=True)
class Usage:
    """How many people are taking a version now, and how many have submitted on it."""

    in_progress: int
    done: int

    @property
    def any(self) -> bool:
        return bool(self.in_progress or self.done)


def new_version_warning(usage: Usage, current: int) -> str:
    """The warning staff confirm before an edit makes a new version of a test in use."""
    people = _count(usage.in_progress, "person is", "people are")
    reviews = _count(usage.done, "review was", "reviews were")
    return (
        f"{people} taking version {current} now and {reviews} submitted on it. Saving makes version "
        f"{current + 1}: people in the middle of the test finish on version {current}, new participants get "
        f"version {current + 1}, and every answer already given stays with the version it was given on."
    )


def _count(n: int, one: str, many: str) -> str:
    return f"1 {one}" if n == 1 else f"{n} {many}"


# --- what changed between two versions ------------------------------------------------------------------


@dataclass(frozen=True)
class Change:
    """One difference between two documents: where ('survey.questions[2].text'), and the two values as text."""

    path: str
    before: str
    after: str

    @property
    def kind(self) -> str:
        if self.before == "":
            return "added"
        if self.after == "":
            return "removed"
        return "changed"


MAX_TEXT = 300


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        text = value
    elif isinstance(value, (int, float)):
        text = str(value)
    else:
        text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "…"


def _path(base: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{base}[{key}]"
    return f"{base}.{key}" if base else key


def changes(before: Any, after: Any, base: str = "") -> list[Change]:
    """Every leaf that differs between two definition documents, in document order.

    Objects are compared key by key; lists item by item, except lists of questions, areas and options,
    which are matched by their `key` or `value` when every item has one (so a question inserted first
    reads as one addition, not as every question changed)."""
    if isinstance(before, dict) and isinstance(after, dict):
        found: list[Change] = []
        for key in [*before, *(k for k in after if k not in before)]:
            found += changes(before.get(key), after.get(key), _path(base, key))
        return found
    if isinstance(before, list) and isinstance(after, list):
        keyed = _keyed(before) and _keyed(after)
        if keyed:
            return _keyed_changes(before, after, base)
        found = []
        for i in range(max(len(before), len(after))):
            found += changes(
                before[i] if i < len(before) else None, after[i] if i < len(after) else None, _path(base, i)
            )
        return found
    if _norm(before) == _norm(after):
        return []
    return [Change(base, _text(_norm(before)), _text(_norm(after)))]


def _id_of(item: Any) -> str | None:
    if not isinstance(item, dict):
        return None
    for name in ("key", "value"):
        got = item.get(name)
        if isinstance(got, (str, int)) and not isinstance(got, bool):
            return f"{name}={got}"
    return None


def _keyed(items: list[Any]) -> bool:
    ids = [_id_of(item) for item in items]
    return bool(items) and all(ids) and len(set(ids)) == len(ids)


def _keyed_changes(before: list[Any], after: list[Any], base: str) -> list[Change]:
    old = {_id_of(item): (i, item) for i, item in enumerate(before)}
    new = {_id_of(item): (i, item) for i, item in enumerate(after)}
    found: list[Change] = []
    for ident, (i, item) in new.items():
        if ident in old:
            j, was = old[ident]
            if i != j:
                found.append(Change(f"{_path(base, i)} ({ident})", f"position {j + 1}", f"position {i + 1}"))
            found += changes(was, item, _path(base, i))
        else:
            found.append(Change(_path(base, i), "", _text(item)))
    for ident, (j, was) in old.items():
        if ident not in new:
            found.append(Change(f"{_path(base, j)} ({ident})", _text(was), ""))
    return found
