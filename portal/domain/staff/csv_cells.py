"""CSV cells safe to open in Excel or Sheets: a cell that starts with = + - @ (or a tab or carriage
return) would be read as a formula, so it is prefixed with a single quote (OWASP 'CSV injection')."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from typing import Any

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(value: Any) -> str:
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def to_csv(header: Iterable[Any], rows: Iterable[Iterable[Any]]) -> str:
    """UTF-8 text with a BOM (Excel then reads it as UTF-8), every cell escaped."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow([safe_cell(c) for c in header])
    for row in rows:
        writer.writerow([safe_cell(c) for c in row])
    return "\ufeff" + out.getvalue()
