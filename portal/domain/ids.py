"""Whole numbers (ids, step indexes) from whatever a browser may send."""

from __future__ import annotations

from typing import Any

MAX_DIGITS = 11  # more than any id here; keeps int() of a huge string off the table
MAX_VALUE = 2**31 - 1  # the largest id PostgreSQL's integer columns hold


def whole_number(value: Any, *, max_digits: int = MAX_DIGITS) -> int | None:
    """A non-negative whole number from an int or a string of ASCII digits; None for anything else.

    bool is not a number here, and '²' is a digit to str.isdigit() but not a number to int().
    Numbers above MAX_VALUE name nothing here either.
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if 0 <= value <= MAX_VALUE else None
    if isinstance(value, str):
        text = value.strip()
        if 0 < len(text) <= max_digits and text.isascii() and text.isdigit() and int(text) <= MAX_VALUE:
            return int(text)
    return None
