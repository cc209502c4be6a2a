"""Countries (ISO 3166-1) and their states (ISO 3166-2), from pycountry; never stored in tables."""

from __future__ import annotations

import functools
import re
import unicodedata
from typing import Any

import pycountry

DEFAULT_COUNTRY = "US"
# ISO adds alternative names in brackets: 'Wales [Cymru GB-CYM]' is shown as 'Wales'.
_BRACKETED = re.compile(r"\s*\[[^\]]*\]\s*$")


def _sort_key(name: str) -> str:
    """Sort 'Åland Islands' with A and 'Côte d'Ivoire' with C."""
    return unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode().casefold()


def _display_name(record: Any) -> str:
    # common_name where ISO's official short name is awkward ('Bolivia, Plurinational State of').
    return str(getattr(record, "common_name", None) or record.name)


@functools.cache
def countries() -> list[tuple[str, str]]:
    """Every country as (alpha-2 code, name), sorted by name."""
    pairs = [(c.alpha_2, _display_name(c)) for c in pycountry.countries]
    return sorted(pairs, key=lambda pair: _sort_key(pair[1]))


@functools.cache
def _country_names() -> dict[str, str]:
    return dict(countries())


def is_country(alpha2: str | None) -> bool:
    return isinstance(alpha2, str) and alpha2.upper() in _country_names() and alpha2 == alpha2.upper()


def country_name(alpha2: str) -> str | None:
    return _country_names().get((alpha2 or "").upper())


@functools.cache
def _subdivisions(alpha2: str) -> tuple[tuple[str, str], ...]:
    # pycountry's Database.get is not annotated.
    records = list(pycountry.subdivisions.get(country_code=alpha2) or [])  # type: ignore[no-untyped-call]
    # Top-level subdivisions only (US states, French regions, English nations), like a 'state' picker.
    top = [s for s in records if not getattr(s, "parent_code", None)] or records
    return tuple(sorted(((s.code, _BRACKETED.sub("", s.name)) for s in top), key=lambda pair: _sort_key(pair[1])))


def subdivisions(alpha2: str) -> list[tuple[str, str]]:
    """A country's states/regions as (ISO 3166-2 code, name) sorted by name; [] for unknown countries."""
    code = (alpha2 or "").upper()
    if code not in _country_names():
        return []
    return list(_subdivisions(code))


def is_state_of(country: str | None, state: str | None) -> bool:
    """True when `state` is one of the subdivisions offered for `country`."""
    if not country or not state:
        return False
    return any(code == state for code, _ in subdivisions(country))
