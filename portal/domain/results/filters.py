"""The results page's filters (and its exports'): who, which version, when, and whether excluded reviews count.

One reader for the page's controls, the export links and the service: a value that is not one of the choices
gets a clear message and filters nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from datetime import date
from typing import Any

from portal.domain.geography import is_country
from portal.domain.reference_data import COMPANY_SIZE_SEGMENTS, SENIORITY_OPTIONS
from portal.domain.staff import reviews as decisions

# Reviews left out of results and exports unless staff ask for them: excluded (still paid) and rejected ones.
EXCLUDED = frozenset({decisions.EXCLUDED, decisions.REJECTED})

SENIORITIES: dict[str, str] = {o.value: o.label.split(" (")[0] for o in SENIORITY_OPTIONS}


def _employees(low: int, high: int | None) -> str:
    if high is None:
        return f"{low:,}+ employees"
    return f"{low} employee" if low == high == 1 else f"{low}-{high} employees"


COMPANY_SIZES: dict[str, str] = {s.id: _employees(s.min_size, s.max_size) for s in COMPANY_SIZE_SEGMENTS}

BAD_SENIORITY = "Choose a seniority from the list."
BAD_COUNTRY = "Choose a country from the list."
BAD_COMPANY_SIZE = "Choose a company size from the list."
BAD_VERSION = "Choose a version of this test."
BAD_DATE = "Write dates as YYYY-MM-DD."
DATES_REVERSED = "The 'From' date is after the 'To' date."


class FilterError(ValueError):
    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field, self.message = field, message


@dataclass(frozen=True)
class Filters:
    seniority: str = ""  # a SENIORITIES key: participants who gave it as one of their levels
    country: str = ""  # ISO 3166-1 alpha-2
    company_size: str = ""  # a COMPANY_SIZES key
    version: int | None = None  # a version number of the test
    since: date | None = None  # submitted on or after (UTC day)
    until: date | None = None  # submitted on or before (UTC day)
    excluded: bool = False  # also count excluded and rejected reviews

    def params(self) -> dict[str, str]:
        """The filters as the export link's query (only the ones set)."""
        out: dict[str, str] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value in (None, "", False):
                continue
            out[f.name] = "1" if value is True else value.isoformat() if isinstance(value, date) else str(value)
        return out

    def statuses_left_out(self) -> frozenset[str]:
        return frozenset() if self.excluded else EXCLUDED


def _text(raw: Mapping[str, Any], name: str) -> str:
    value = raw.get(name)
    if value is None:
        return ""
    if not isinstance(value, (str, int)) or isinstance(value, bool):
        raise FilterError(name, "")
    return str(value).strip()[:40]


def _date(raw: Mapping[str, Any], name: str) -> date | None:
    try:
        text = _text(raw, name)
    except FilterError:
        raise FilterError(name, BAD_DATE) from None
    if not text:
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise FilterError(name, BAD_DATE) from None


def read(raw: Mapping[str, Any] | None) -> Filters:
    """The filters from the page or a link (strings); FilterError names the field and says what is wrong."""
    raw = raw if isinstance(raw, Mapping) else {}
    checks: tuple[tuple[str, Callable[[str], bool], str], ...] = (
        ("seniority", SENIORITIES.__contains__, BAD_SENIORITY),
        ("country", lambda v: is_country(v.upper()), BAD_COUNTRY),
        ("company_size", COMPANY_SIZES.__contains__, BAD_COMPANY_SIZE),
        ("version", lambda v: v.isdigit() and 0 < int(v) < 10**6, BAD_VERSION),
    )
    values: dict[str, str] = {}
    for name, ok, message in checks:
        try:
            value = _text(raw, name)
        except FilterError:
            raise FilterError(name, message) from None
        if value and not ok(value):
            raise FilterError(name, message)
        values[name] = value
    since, until = _date(raw, "since"), _date(raw, "until")
    if since and until and since > until:
        raise FilterError("until", DATES_REVERSED)
    excluded = raw.get("excluded")
    return Filters(
        seniority=values["seniority"],
        country=values["country"].upper(),
        company_size=values["company_size"],
        version=int(values["version"]) if values["version"] else None,
        since=since,
        until=until,
        excluded=excluded is True or excluded in ("1", "true", "on"),
    )
