"""Invites to paid tests. An invite lasts 24 hours."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Index
from sqlmodel import Field, SQLModel

from portal.models._base import created_field


class Invite(SQLModel, table=True):
    __tablename__ = "invite"
    __table_args__ = (
        # The invites table: a participant's page of ids in (created_at, id) order, status filters and
        # search answered from the index alone (PostgreSQL INCLUDE); the count of open invites likewise.
        Index("ix_invite_account_created_id", "account_id", "created_at", "id",
              postgresql_include=["status", "expires_at", "test_id"]),
        Index("ix_invite_account_status_expires", "account_id", "status", "expires_at"),
        Index("ix_invite_test_account", "test_id", "account_id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    account_id: int = Field(foreign_key="account.id", ondelete="CASCADE")
    test_id: int = Field(foreign_key="test.id", ondelete="CASCADE")
    # open | filled | completed | expired | canceled
    status: str = Field(default="open", max_length=16)
    amount_cents: int
    created_at: datetime = created_field()
    expires_at: datetime
