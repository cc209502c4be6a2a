"""Browser tab titles.

Test pages: 'name (status) | pricing tier | launched or updated date | brand' (spec, section 9).
The portal's own pages: '<Page> | Participants Portal' (set in portal/portal.py).
"""

from __future__ import annotations

from datetime import date, datetime

from portal.domain.table import format_date

SEPARATOR = " | "


def _text(value: object) -> str:
    return " ".join(str(value).split()) if value is not None else ""


def _tier_label(tier: str) -> str:
    """'landing-page' / 'landing_page' -> 'Landing page'; other text kept as written."""
    text = _text(tier)
    if text and text == text.lower() and (" " not in text):
        text = text.replace("-", " ").replace("_", " ")
        return text[:1].upper() + text[1:]
    return text


def test_page_title(
    *,
    name: str,
    brand: str,
    status: str | None = None,
    pricing_tier: str | None = None,
    launched_on: date | datetime | None = None,
    updated_on: date | datetime | None = None,
) -> str:
    """The title of a test page, e.g. 'Acme homepage (Live) | Landing page | Updated Mar 4, 2026 | Participants Portal'.

    The date shown is the update date when there is one later than the launch, else the
    launch date; empty parts are left out with their separator.
    """
    head = _text(name) or "Test"
    if _text(status):
        head = f"{head} ({_text(status)})"
    parts = [head]
    if pricing_tier and _tier_label(pricing_tier):
        parts.append(_tier_label(pricing_tier))
    launched = launched_on.date() if isinstance(launched_on, datetime) else launched_on
    updated = updated_on.date() if isinstance(updated_on, datetime) else updated_on
    if updated is not None and (launched is None or updated > launched):
        parts.append(f"Updated {format_date(updated)}")
    elif launched is not None:
        parts.append(f"Launched {format_date(launched)}")
    if _text(brand):
        parts.append(_text(brand))
    return SEPARATOR.join(parts)


# Not a pytest test, despite its (spec-given) name.
test_page_title.__test__ = False  # type: ignore[attr-defined]


def portal_page_title(page: str, brand: str) -> str:
    """'<Page> | Participants Portal'."""
    return f"{_text(page)}{SEPARATOR}{_text(brand)}"
