"""Invites to paid tests. An invite lasts 24 hours."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Index
from sqlmodel import Field, SQLModel

from portal.models._base import created_field, json_field


class Invite(SQLModel, table=True):
    __tablename__ = "invite"
    __table_args__ = (
        # The invites table: a participant's page of ids in (created_at, id) order, status filters and
        # search answered from the index alone (PostgreSQL INCLUDE); the count of open invites likewise.
        Index(
            "ix_invite_account_created_id",
            "account_id",
            "created_at",
            "id",
            postgresql_include=["status", "expires_at", "test_id"],
        ),
        Index("ix_invite_account_status_expires", "account_id", "status", "expires_at"),
        Index("ix_invite_test_account", "test_id", "account_id"),
        # The reminder job: open invites about to expire (migration 0013).
        Index("ix_invite_status_expires", "status", "expires_at"),
    )

    id: int = Field(default=None, primary_key=True)
    account_id: int = Field(foreign_key="account.id", ondelete="CASCADE")
    test_id: int = Field(foreign_key="test.id", ondelete="CASCADE")
    # open | filled | completed | expired | canceled
    status: str = Field(default="open", max_length=16)
    amount_cents: int
    created_at: datetime = created_field()
    expires_at: datetime
    batch_id: int | None = None  # the staff batch that sent it (invite_batch.id)


class InviteBatch(SQLModel, table=True):
    """Invites sent by staff to a test in one go: what was asked, and how far sending has got."""

    __tablename__ = "invite_batch"

    id: int = Field(default=None, primary_key=True)
    test_id: int = Field(foreign_key="test.id", index=True, ondelete="CASCADE")
    created_by_id: int | None = None
    # The participant filters and search the batch was chosen with, as sent.
    criteria: dict[str, Any] = json_field(dict)
    amount_override_cents: int | None = None
    requested: int = 0  # participants matched
    sent: int = 0
    skipped: int = 0  # already invited or reviewed, or over a quota
    # running | done | failed
    status: str = Field(default="running", max_length=16)
    error: str | None = Field(default=None, max_length=500)
    created_at: datetime = created_field()
    finished_at: datetime | None = None
