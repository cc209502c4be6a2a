"""Rules of the shared data table: page sizes, sort direction, pagination, filters, labels.

Pure: no reflex, no database. Every value that arrives from the browser goes through
one of the `clean_*` functions here before a query is built.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from functools import lru_cache
from typing import Any

PAGE_SIZES: tuple[int, ...] = (10, 20, 30, 40, 50)
DEFAULT_PAGE_SIZE = PAGE_SIZES[4]  # the fifth option (50) unless a table says otherwise
DEFAULT_SORT_BY = "createdOn"
ASCENDING = 1
DESCENDING = -1
DEFAULT_SORT_DIRECTION = DESCENDING
SEARCH_DEBOUNCE_MS = 1500
MAX_SEARCH_LENGTH = 100
MAX_PAGE = 1_000_000
MAX_FILTER_VALUES = 50
FILTER_TYPES = ("list", "exclude", "range")

NO_MATCHES = "No matches found"
NO_ITEMS = "There are no items yet"
ERROR_TITLE = "Error loading data"
ERROR_BODY = "Please try refreshing the page."
RENDER_FAILURE = (
    "Unable to display table - There was a problem loading this table. Please refresh the page or contact support."
)
RANGE_CONFIRM_BUTTON = "Use range"


def page_size_options(extra: tuple[int, ...] | list[int] = ()) -> list[int]:
    """10, 20, 30, 40, 50 plus a table's own extra sizes ('B2B participants' adds 100, 200; 'ICP Pulse' adds 5)."""
    sizes = {s for s in (*PAGE_SIZES, *extra) if isinstance(s, int) and not isinstance(s, bool) and 0 < s <= 1000}
    return sorted(sizes)


def is_ascending(sort_direction: Any) -> bool:
    """sortDirection 1 means ascending; any other value means descending."""
    return sort_direction == ASCENDING and not isinstance(sort_direction, bool) or sort_direction == "1"


def pagination_visible(total: int, options: list[int] | tuple[int, ...] = PAGE_SIZES) -> bool:
    """Pagination is hidden unless the total exceeds the smallest page-size option."""
    return bool(options) and total > min(options)


def page_count(total: int, page_size: int) -> int:
    return max(1, -(-max(total, 0) // max(page_size, 1)))


def clean_int(value: Any, default: int, *, low: int, high: int) -> int:
    if isinstance(value, bool):
        return default
    try:
        number = int(value)
    except (TypeError, ValueError, OverflowError):
        return default
    return min(max(number, low), high)


def clean_page(value: Any) -> int:
    return clean_int(value, 1, low=1, high=MAX_PAGE)


def clean_page_size(
    value: Any, options: list[int] | tuple[int, ...] = PAGE_SIZES, default: int = DEFAULT_PAGE_SIZE
) -> int:
    size = clean_int(value, default, low=1, high=10_000)
    return size if size in options else default


def clean_sort(
    sort_by: Any, sort_direction: Any, allowed: tuple[str, ...] | list[str] | set[str], default: str = DEFAULT_SORT_BY
) -> tuple[str, int]:
    """A whitelisted column and 1 or -1."""
    column = sort_by if isinstance(sort_by, str) and sort_by in allowed else default
    return column, ASCENDING if is_ascending(sort_direction) else DESCENDING


def clean_search(text: Any) -> str:
    if not isinstance(text, str):
        return ""
    return " ".join(text.split())[:MAX_SEARCH_LENGTH]


def toggle_sort(current_by: str, current_direction: int, column: str) -> tuple[str, int]:
    """Clicking a header: a new column sorts descending first; the same column flips."""
    if column != current_by:
        return column, DESCENDING
    return column, DESCENDING if current_direction == ASCENDING else ASCENDING


@dataclass(frozen=True)
class Filter:
    """One filter: name, type (list | exclude | range), values (option values, or [from, to] ISO dates)."""

    name: str
    type: str
    values: tuple[str, ...] = field(default_factory=tuple)


def parse_iso_date(value: Any) -> date | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        return date.fromisoformat(value[:10])
    except ValueError:
        return None


def clean_filters(raw: Any, allowed: dict[str, dict[str, Any]]) -> list[Filter]:
    """Keep only known filter names with their declared type and known option values.

    `allowed`: name -> {"type": "list"|"exclude"|"range", "options": [values] (list/exclude)}.
    Accepts a list of {name, type, values} dicts as sent by the browser; anything else is dropped.
    """
    if not isinstance(raw, (list, tuple)):
        return []
    out: dict[str, Filter] = {}
    for item in raw[:20]:
        if not isinstance(item, dict):
            continue
        name = item.get("name")
        if not isinstance(name, str) or name not in allowed:
            continue
        spec = allowed[name]
        kind = item.get("type", spec["type"])
        if kind != spec["type"] and not (spec["type"] in ("list", "exclude") and kind in ("list", "exclude")):
            continue
        values = item.get("values")
        if not isinstance(values, (list, tuple)):
            continue
        if kind == "range":
            dates = [d for d in (parse_iso_date(v) for v in list(values)[:2]) if d is not None]
            if len(dates) != 2:
                continue
            low, high = sorted(dates)
            out[name] = Filter(name, "range", (low.isoformat(), high.isoformat()))
        else:
            options = spec.get("options", ())
            chosen = tuple(dict.fromkeys(v for v in values[:MAX_FILTER_VALUES] if isinstance(v, str) and v in options))
            if chosen:
                out[name] = Filter(name, kind, chosen)
    return list(out.values())


def range_confirmation(start: str, end: str) -> str:
    """The question asked before a date range is applied."""
    return f"Are you sure you want to use date range {format_iso(start)} - {format_iso(end)}?"


def format_iso(value: str) -> str:
    d = parse_iso_date(value)
    return format_date(d) if d else ""


def empty_message(searching_or_filtering: bool) -> str:
    return NO_MATCHES if searching_or_filtering else NO_ITEMS


def singular(noun: str) -> str:
    """'participants' -> 'participant' (the plural nouns of the tables' selections)."""
    return noun[:-1] if noun.endswith("s") else noun


def selection_label(count: int, noun: str = "participants") -> str:
    """'3 participants selected', '1 participant selected', '2 tests selected'."""
    return f"{count} {singular(noun) if count == 1 else noun} selected"


MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def format_date(value: date | datetime | None) -> str:
    """'MMM D, YYYY' (e.g. 'Nov 3, 2026'); empty for no date."""
    if value is None:
        return ""
    if isinstance(value, datetime) and value.tzinfo is not None:
        value = value.astimezone(UTC)  # the calendar day in UTC, whatever the database session's time zone
    return f"{MONTHS[value.month - 1]} {value.day}, {value.year}"


@lru_cache(maxsize=1024)  # payouts repeat: formatted for every row of a table page
def format_money(cents: int | None) -> str:
    if cents is None:
        return ""
    dollars, rest = divmod(int(cents), 100)
    return f"${dollars:,}" if rest == 0 else f"${dollars:,}.{rest:02d}"


PAYMENT_LABELS = {"EXECUTED": "Paid", "FAILED": "Failed", "CANCELED": "Canceled", "PENDING": "Pending"}


def payment_status_label(status: Any) -> str:
    """EXECUTED/FAILED/CANCELED/PENDING -> Paid/Failed/Canceled/Pending, anything else blank."""
    return PAYMENT_LABELS.get(status, "") if isinstance(status, str) else ""
