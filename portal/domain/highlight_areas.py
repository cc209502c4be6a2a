"""The highlight-area editor (staff, /admin/tests/{id}/areas): pure rules over a test's areas.

Areas are the definition's own `selectedAreas`: `{from: [x, y], to: [x, y], questions: [...]}` in
percent of the screenshot (docs/test-format.md). Whether a set of areas is valid is decided by the
import's reader (portal/domain/taking/kinds/highlight.py `read`), called here on the test's blocks and the
edited areas, so the editor's live messages, its server re-check and the JSON import are one rule.
This module only adds what the editor needs on top: reading a box sent by the browser, fresh
question keys, and limits on what one tab may build up.
"""

from __future__ import annotations

import math
from typing import Any

from portal.domain.definition_checks import Checker, DefinitionError
from portal.domain.taking import kinds

MAX_AREAS = 50  # areas the editor lets one draw on a test (an imported test may have more)
MAX_QUESTIONS = 20  # questions per area in the editor
MAX_TEXT = 5000  # question text (the import's limit; longer input is cut, not stored)
KEY_STEP = 1.0  # percent an arrow key moves (or, with Shift, resizes) the selected area
MIN_SIZE = 1.0  # percent: the smallest width and height an area is given
NEW_BOX = (35, 35, 65, 55)  # where 'Add an area' (the keyboard's way to draw one) puts it
EDITOR_TYPES = {"long-text": "Long text", "short-text": "Short text"}  # types a question is added or switched as
NEW_TYPE = "long-text"

NOT_A_BOX = "An area is four numbers between 0 and 100 with a width and a height."
TOO_MANY_AREAS = f"A test can have at most {MAX_AREAS} areas."
TOO_MANY_QUESTIONS = f"An area can have at most {MAX_QUESTIONS} questions."
NO_AREAS = "This test has no highlight areas (only highlight and pricing tests do)."


def has_areas(product_type: str) -> bool:
    """Whether tests of this product type carry `selectedAreas` (highlight and pricing kinds)."""
    return "selectedAreas" in kinds.kind_of(product_type).fields


def area_screenshot(product_type: str, screenshot_url: str | None, pricing_screenshot_url: str | None) -> str:
    """The screenshot the areas are drawn on: a pricing test's pricing page, else the page under test
    (as the participant's split view shows it)."""
    if kinds.kind_of(product_type).home_page:
        return pricing_screenshot_url or ""
    return screenshot_url or ""


def _number(value: float) -> int | float:
    value = round(value, 2)
    return int(value) if value == int(value) else value


def clean_box(value: Any) -> tuple[int | float, int | float, int | float, int | float] | None:
    """A box [x1, y1, x2, y2] in percent sent by the browser, rounded to 0.01 and kept inside 0-100;
    None unless it is four finite numbers with x1 < x2 and y1 < y2."""
    if not isinstance(value, list | tuple) or len(value) != 4:
        return None
    if not all(isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) for v in value):
        return None
    x1, y1, x2, y2 = (_number(min(100.0, max(0.0, float(v)))) for v in value)
    if not (x1 < x2 and y1 < y2):
        return None
    return x1, y1, x2, y2


def with_box(area: dict[str, Any], box: tuple[Any, Any, Any, Any]) -> dict[str, Any]:
    x1, y1, x2, y2 = box
    return {**area, "from": [x1, y1], "to": [x2, y2]}


def new_area(box: tuple[Any, Any, Any, Any]) -> dict[str, Any]:
    return with_box({"questions": []}, box)


def question_keys(blocks: Any, areas: list[dict[str, Any]]) -> set[str]:
    """Every question key of the test: its blocks' and its areas'."""
    found: list[Any] = []
    if isinstance(blocks, dict):
        for block in blocks.values():
            found += block if isinstance(block, list) else []
    for area in areas:
        found += got if isinstance(got := area.get("questions"), list) else []
    return {str(q.get("key")) for q in found if isinstance(q, dict) and q.get("key")}


def fresh_key(taken: set[str], area_number: int) -> str:
    """A question key not yet used in the test: 'area-2-q1', 'area-2-q2', ..."""
    n = 1
    while f"area-{area_number}-q{n}" in taken:
        n += 1
    return f"area-{area_number}-q{n}"


def new_question(key: str) -> dict[str, Any]:
    return {"key": key, "type": NEW_TYPE, "text": "", "isRequired": True, "isLimited": True}


def with_type(question: dict[str, Any], kind: str) -> dict[str, Any]:
    """A text question switched between long and short text (isLimited only applies to long text)."""
    changed = {**question, "type": kind}
    if kind == "long-text":
        changed.setdefault("isLimited", True)
    else:
        changed.pop("isLimited", None)
    return changed


def problems(
    areas: Any,
    *,
    product_type: str,
    blocks: Any,
    pricing_url: str | None = None,
    pricing_screenshot_url: str | None = None,
) -> list[DefinitionError]:
    """Every problem of `areas` as the JSON import reports it (paths such as
    'selectedAreas[1].questions[0].text'): the kind's own reader over the test's blocks and these areas."""
    if not has_areas(product_type):
        return [DefinitionError("selectedAreas", NO_AREAS)]
    ck = Checker()
    doc = {
        "questions": blocks if isinstance(blocks, dict) else {},
        "selectedAreas": areas,
        "pricingUrl": pricing_url,
        "pricingScreenshotUrl": pricing_screenshot_url,
    }
    kinds.kind_of(product_type).read(ck, doc, product_type=product_type, seen_keys={}, columns={})
    return ck.errors


def boxes(areas: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What the editor draws: each area's box in percent (left, top, width, height)."""
    shown = []
    for area in areas:
        corners = [*(area.get("from") or []), *(area.get("to") or [])] if isinstance(area, dict) else []
        x1, y1, x2, y2 = clean_box(corners) or (0, 0, 0, 0)
        shown.append({"left": x1, "top": y1, "width": _number(x2 - x1), "height": _number(y2 - y1)})
    return shown
