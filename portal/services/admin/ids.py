"""Ids sent by the browser to the staff services: one id, or a list of them for a bulk action, with
messages that name what the list holds ('Select at least one review.')."""

from __future__ import annotations

from typing import Any

from portal.domain.ids import whole_number
from portal.services.errors import ServiceError


def nothing_selected(noun: str) -> str:
    return f"Select at least one {noun}."


def too_many(limit: int, nouns: str) -> str:
    return f"Select at most {limit} {nouns} at a time."


def parse_ids(raw: Any, limit: int, *, noun: str, nouns: str | None = None) -> list[int]:
    """Ids (strings or ints), unique and positive, in the order sent; ServiceError when none or more than `limit`.
    `noun`/`nouns`: what the list holds, for the messages ('participant' / 'participants')."""
    nouns = nouns or f"{noun}s"
    if not isinstance(raw, (list, tuple)):
        raise ServiceError(nothing_selected(noun))
    ids: list[int] = []
    for item in raw[: limit + 1]:
        number = whole_number(
            item
        )  # ASCII digits only ('²' is a digit to str.isdigit, not to int), within an id's range
        if number is not None and number > 0 and number not in ids:
            ids.append(number)
    if not ids:
        raise ServiceError(nothing_selected(noun))
    if len(ids) > limit or len(raw) > limit:
        raise ServiceError(too_many(limit, nouns))
    return ids


def one_id(raw: Any, missing: str) -> int:
    """One id sent by the browser, or ServiceError(missing)."""
    number = whole_number(raw)
    if number is None or number <= 0:
        raise ServiceError(missing)
    return number
