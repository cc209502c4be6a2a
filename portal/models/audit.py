"""The staff audit log: append-only (the database refuses UPDATE and DELETE, migration 0007)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Index
from sqlmodel import Field, SQLModel

from portal.models._base import created_field, json_field


class AuditEntry(SQLModel, table=True):
    __tablename__ = "audit_log"
    __table_args__ = (
        Index("ix_audit_log_created_id", "created_at", "id"),
        Index("ix_audit_log_actor_created", "actor_id", "created_at"),
        Index("ix_audit_log_action_created", "action", "created_at"),
    )

    id: int = Field(default=None, primary_key=True)
    created_at: datetime = created_field()
    # Who: kept as values, not foreign keys (the log outlives accounts).
    actor_id: int | None = None
    actor_email: str = Field(default="", max_length=320)
    actor_role: str = Field(default="", max_length=32)  # '' for the system (scheduled jobs, CLI)
    action: str = Field(max_length=64)
    target_type: str = Field(max_length=32)
    target_id: str = Field(default="", max_length=64)
    before: dict[str, Any] = json_field(dict)
    after: dict[str, Any] = json_field(dict)
    # When a deleted person's address was replaced by their account id here (migration 0018: the one UPDATE the
    # append-only trigger lets through).
    erased_at: datetime | None = None
    # The API key a write was made with (issue 39; migration 0020); None for the pages, jobs and the CLI.
    api_key_id: int | None = None
