"""Cursor pagination: a list answers `{"data": [...], "next_cursor": ...}`; the cursor is opaque to the caller
(the last row's id, encoded) and stable while rows are added."""

from __future__ import annotations

import base64
from typing import Annotated, Any, Generic, TypeVar

from fastapi import Query
from pydantic import BaseModel, Field

from portal.domain.ids import whole_number
from portal.services.errors import ServiceError

T = TypeVar("T")
DEFAULT_LIMIT, MAX_LIMIT = 50, 200
MAX_ID = 2**31 - 1  # ids are 32-bit integers on PostgreSQL
BAD_CURSOR = "The cursor is not one this API gave."


class Page(BaseModel, Generic[T]):
    data: list[T]
    next_cursor: str | None = Field(description="Pass as `cursor` for the next page; null on the last page.")


def page_of(model: type[T], listed: Any) -> Page[T]:
    """The answer of a list route: a service's `Listed` rows as `model`, and the cursor of the next page."""
    return Page[model](  # type: ignore[valid-type]
        data=[model.model_validate(row) for row in listed.rows],  # type: ignore[attr-defined]
        next_cursor=encode(listed.next_after) if listed.next_after is not None else None,
    )


def encode(last_id: int) -> str:
    return base64.urlsafe_b64encode(f"v1:{last_id}".encode()).decode().rstrip("=")


def decode(cursor: str | None) -> int | None:
    """The id after which the page starts (None: the first page); a cursor this API did not give is refused."""
    if not cursor:
        return None
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
    except (ValueError, UnicodeDecodeError):
        raise ServiceError(BAD_CURSOR, field="cursor") from None
    version, _, value = text.partition(":")
    last = whole_number(value)  # an id's range: a larger number would overflow the database's integer
    if version != "v1" or last is None:
        raise ServiceError(BAD_CURSOR, field="cursor")
    return last


Cursor = Annotated[str | None, Query(max_length=200, description="From the previous page's `next_cursor`.")]
Limit = Annotated[int, Query(ge=1, le=MAX_LIMIT, description="Rows per page.")]
