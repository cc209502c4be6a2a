"""Keyset pages for the API's lists: newest first by id, the next page after the last id given."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from sqlalchemy import Select
from sqlmodel import Session

T = TypeVar("T")


@dataclass(frozen=True)
class Listed(Generic[T]):
    rows: list[T]
    next_after: int | None  # the id to pass as the next page's `after` (None: this is the last page)


def page(session: Session, statement: Select[Any], id_column: Any, *, after: int | None, limit: int) -> list[Any]:
    """Up to limit + 1 result rows after `after` (the extra one tells whether there is a next page)."""
    if after is not None:
        statement = statement.where(id_column < after)
    return list(session.execute(statement.order_by(id_column.desc()).limit(limit + 1)).all())


def listed(rows: Sequence[T], ids: Sequence[int], limit: int) -> Listed[T]:
    more = len(rows) > limit
    return Listed(rows=list(rows[:limit]), next_after=ids[limit - 1] if more else None)
