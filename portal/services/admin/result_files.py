"""The results exports as files: CSV and an Excel workbook (openpyxl), one writer per format.

Both write the same table (portal/domain/results/export.py) from the same Results the page shows. Every
text cell is formula-safe: one that starts with = + - @ (or a tab or carriage return) gets a leading quote,
as in the reviews CSV (portal/domain/staff/csv_cells.py); numbers stay numbers in the workbook.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from portal.domain.results.export import SUMMARY_HEADER, review_table, summary_table
from portal.domain.staff.csv_cells import safe_cell, to_csv

if TYPE_CHECKING:
    from portal.services.admin.results import Results

BAD_FORMAT = "Choose CSV or Excel (XLSX) for the export."
XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def _tables(results: Results) -> tuple[list[str], list[list[Any]]]:
    concepts = {c.key: c.label for c in results.report.preference.concepts} if results.report.preference else {}
    return review_table(results.rows, results.slots, concepts)


def write_csv(results: Results) -> bytes:
    header, rows = _tables(results)
    return to_csv(header, rows).encode("utf-8")


def _xlsx_cell(value: Any) -> Any:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float)):
        return value
    return safe_cell(value)


def write_xlsx(results: Results) -> bytes:
    from openpyxl import Workbook

    book = Workbook(write_only=True)
    reviews = book.create_sheet("Reviews")
    header, rows = _tables(results)
    reviews.append([_xlsx_cell(h) for h in header])
    for row in rows:
        reviews.append([_xlsx_cell(c) for c in row])
    summary = book.create_sheet("Summary")
    summary.append([f"Results of {safe_cell(results.name)}"])
    for line in summary_table(results.report, results.slots, results.filters):
        summary.append([_xlsx_cell(c) for c in line])
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


@dataclass(frozen=True)
class Writer:
    suffix: str
    media_type: str
    write: Callable[[Results], bytes]


WRITERS: dict[str, Writer] = {
    "csv": Writer("csv", "text/csv;charset=utf-8", write_csv),
    "xlsx": Writer("xlsx", XLSX_TYPE, write_xlsx),
}
__all__ = ["BAD_FORMAT", "SUMMARY_HEADER", "WRITERS", "Writer"]
