"""What a results export holds: one row per review (its participant's attributes, version, shown order, quality
signals and every answer under its question's text), and the summary sheet with the page's numbers.

Both come from the same rows and Report the page shows (report.py), so the files and the page agree.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from portal.domain.results.filters import COMPANY_SIZES, SENIORITIES, Filters
from portal.domain.results.questions import CHOICE, MATRIX, MULTI, NUMBER, RANK, RATING, TEXT
from portal.domain.results.report import Report, Row, Slot, answer_cells, signal_columns, signal_value
from portal.domain.staff.reviews import STATUS_LABELS

FIXED = (
    "Review",
    "Participant",
    "Submitted (UTC)",
    "Status",
    "Version",
    "Seniority",
    "Country",
    "Company size",
    "Industry",
    "Time taken (seconds)",
    "Shown order",
)


def review_table(
    rows: Sequence[Row], slots: Sequence[Slot], concepts: Mapping[str, str] | None = None
) -> tuple[list[str], list[list[Any]]]:
    """(header, one row per review). `concepts`: a preference test's concept labels by key (the shown
    order is written with them)."""
    signals = signal_columns(rows)
    header = [*FIXED, *(f"Signal: {name}" for name in signals), *(slot.title for slot in slots)]
    labels = concepts or {}
    out = []
    for row in rows:
        cells = answer_cells(row, slots)
        out.append(
            [
                row.review_id,
                row.participant,
                row.submitted.strftime("%Y-%m-%d %H:%M:%S"),
                STATUS_LABELS.get(row.status, row.status),
                row.version if row.version is not None else "",
                ", ".join(SENIORITIES.get(s, s) for s in row.seniority),
                row.country,
                COMPANY_SIZES.get(row.company_size, row.company_size),
                ", ".join(row.industries),
                row.seconds if row.seconds is not None else "",
                " | ".join(labels.get(k, k) for k in row.order),
                *(_cell(signal_value(row.signals, name)) for name in signals),
                *(text for text, _ in cells),
            ]
        )
    return header, out


def _cell(value: Any) -> Any:
    return "" if value is None else value


def _pct(value: float) -> float:
    return round(value * 100, 1)


SUMMARY_HEADER = ("Question", "Answer", "Count", "Share (%)", "95% low (%)", "95% high (%)")


def summary_table(report: Report, slots: Sequence[Slot], chosen: Filters) -> list[list[Any]]:
    """The page's numbers as rows (the workbook's 'Summary' sheet): the filters, the count and time taken,
    each question's shares, means and positions, the preference shares and the order table."""
    out: list[list[Any]] = [["Filters", ", ".join(f"{k}={v}" for k, v in chosen.params().items()) or "none"]]
    out.append(["Reviews", report.reviews])
    if report.timing.median is not None:
        out.append(["Median time taken (seconds)", report.timing.median])
    out.append([])
    out.append(list(SUMMARY_HEADER))
    for result in report.questions:
        s, title = result.summary, result.slot.title
        if s.shape in (CHOICE, MULTI, RATING):
            for share in s.shares:
                interval = share.interval
                out.append(
                    [
                        title,
                        s.labels.get(share.key, share.key),
                        share.count,
                        _pct(share.share),
                        _pct(interval.low) if interval else "",
                        _pct(interval.high) if interval else "",
                    ]
                )
            if s.mean is not None:
                out.append([title, "Mean", round(s.mean, 2)])
        elif s.shape == NUMBER and s.mean is not None:
            for name, value in (("Mean", s.mean), ("Median", s.median), ("Lowest", s.low), ("Highest", s.high)):
                out.append([title, name, round(value, 2) if value is not None else ""])
        elif s.shape == RANK:
            for key, position in s.positions.items():
                out.append([title, f"{s.labels.get(key, key)} (mean position)", round(position, 2)])
        elif s.shape == MATRIX:
            for statement, counts in s.table.items():
                for column, count in counts.items():
                    out.append([title, f"{s.labels.get(statement, statement)}: {s.labels.get(column, column)}", count])
        elif s.shape == TEXT:
            out.append([title, "Answers", s.answered])
    if report.preference is not None:
        pref = report.preference
        labels = {c.key: c.label for c in pref.concepts}
        out.append([])
        out.append(["Order effect: chosen / shown at each position"])
        out.append(["Position", *(labels[c.key] for c in pref.concepts)])
        for position, row in enumerate(pref.order, start=1):
            out.append([position, *(f"{row[c.key].chosen} / {row[c.key].shown}" for c in pref.concepts)])
    for area in report.areas:
        out.append([f"Area {area.number}", "Reviews with an answer", area.answered])
    return out
