"""Column helpers shared by every table."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON
from sqlmodel import Field


def utcnow() -> datetime:
    return datetime.now(UTC)


def created_field(**kwargs: Any) -> Any:
    return Field(default_factory=utcnow, nullable=False, **kwargs)


def json_field(default_factory: Any = dict, **kwargs: Any) -> Any:
    """A JSON column (JSONB-compatible on PostgreSQL, TEXT on SQLite)."""
    return Field(default_factory=default_factory, sa_type=JSON, **kwargs)
