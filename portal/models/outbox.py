"""E-mails to send, written in the same transaction as the change they announce."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Index
from sqlmodel import Field, SQLModel

from portal.models._base import created_field


class OutboxEmail(SQLModel, table=True):
    __tablename__ = "outbox_email"
    __table_args__ = (
        Index("ix_outbox_pending", "sent_at", "next_attempt_at"),
        # The staff outbox page, newest first (migration 0008).
        Index("ix_outbox_email_created_id", "created_at", "id"),
    )

    id: int = Field(default=None, primary_key=True)
    to_address: str = Field(max_length=320)
    subject: str = Field(max_length=300)
    body_text: str
    # verify-email | verify-work-email | reset-password | email-changed | a notification kind
    kind: str = Field(max_length=32)
    link: str | None = Field(default=None, max_length=2000)
    # A notification's one-click unsubscribe URL (issue 38): the List-Unsubscribe header (RFC 8058).
    unsubscribe_url: str | None = Field(default=None, max_length=2000)
    created_at: datetime = created_field()
    attempts: int = Field(default=0)
    next_attempt_at: datetime = created_field()
    sent_at: datetime | None = None
    last_error: str | None = Field(default=None, max_length=1000)
