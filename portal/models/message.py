"""Messages between staff and a participant (issue 38, item 3): threads, their messages, and group sends."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Index
from sqlmodel import Field, SQLModel

from portal.models._base import created_field, json_field


class MessageThread(SQLModel, table=True):
    """A conversation with one participant, about a test (one of their reviews) or general."""

    __tablename__ = "message_thread"
    __table_args__ = (
        Index("ix_message_thread_account_last", "account_id", "last_message_at"),
        Index("ix_message_thread_test_last", "test_id", "last_message_at"),
        Index("ix_message_thread_last", "last_message_at"),
    )

    id: int = Field(default=None, primary_key=True)
    account_id: int = Field(foreign_key="account.id", ondelete="CASCADE")
    test_id: int | None = Field(default=None, foreign_key="test.id", ondelete="SET NULL")
    review_id: int | None = Field(default=None, foreign_key="review.id", ondelete="SET NULL")
    subject: str = Field(max_length=120)
    started_by_staff: bool = Field(default=False)
    created_at: datetime = created_field()
    last_message_at: datetime = created_field()


class Message(SQLModel, table=True):
    """One message of a thread. `read_at`: when its reader (the participant, or any staff member) opened it."""

    __tablename__ = "message"
    __table_args__ = (Index("ix_message_thread_unread", "thread_id", "from_staff", "read_at"),)

    id: int = Field(default=None, primary_key=True)
    thread_id: int = Field(foreign_key="message_thread.id", ondelete="CASCADE")
    from_staff: bool = Field(default=False)
    author_id: int | None = Field(default=None, foreign_key="account.id", ondelete="SET NULL")
    body: str = Field(max_length=5000)
    created_at: datetime = created_field()
    read_at: datetime | None = None
    group_id: int | None = Field(default=None, foreign_key="message_group.id", ondelete="SET NULL")


class MessageGroup(SQLModel, table=True):
    """One message staff sent to a filtered group: each recipient gets a thread of their own. `request_key` (unique)
    makes the same send twice (a double click, a retry) one send."""

    __tablename__ = "message_group"

    id: int = Field(default=None, primary_key=True)
    staff_id: int | None = Field(default=None, foreign_key="account.id", ondelete="SET NULL")
    subject: str = Field(max_length=120)
    body: str = Field(max_length=5000)
    criteria: dict[str, Any] = json_field()
    recipients: int = Field(default=0)
    request_key: str = Field(max_length=64, unique=True)
    created_at: datetime = created_field()
