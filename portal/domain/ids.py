"""Whole numbers (ids, step indexes) from whatever a browser may send."""

from __future__ import annotations

from typing import Any

MAX_DIGITS = 11  # more than any id here; keeps int() of a huge string off the table


def whole_number(value: Any, *, max_digits: int = MAX_DIGITS) -> int | None:
    """A non-negative whole number from an int or a string of ASCII digits; None for anything else.

    bool is not a number here, and '²' is a digit to str.isdigit() but not a number to int().
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value >= 0 else None
    if isinstance(value, str):
        text = value.strip()
        if 0 < len(text) <= max_digits and text.isascii() and text.isdigit():
            return int(text)
    return None
