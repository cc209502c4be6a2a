"""Notifications sent (one per person and event) and the kinds a participant turned off (issue 38)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import UniqueConstraint
from sqlmodel import Field, SQLModel

from portal.models._base import created_field


class Notification(SQLModel, table=True):
    """One row per person, kind and event: the unique key is what makes a notification go out once."""

    __tablename__ = "notification"
    __table_args__ = (UniqueConstraint("account_id", "kind", "subject_key", name="uq_notification_once"),)

    id: int = Field(default=None, primary_key=True)
    account_id: int = Field(foreign_key="account.id", ondelete="CASCADE")
    kind: str = Field(max_length=32)  # portal/domain/notifications.py KINDS
    subject_key: str = Field(max_length=120)  # the event, e.g. 'invite:12'
    created_at: datetime = created_field()


class NotificationOptOut(SQLModel, table=True):
    """A kind of notification an account turned off (on the notifications page or by a one-click unsubscribe)."""

    __tablename__ = "notification_opt_out"

    account_id: int = Field(foreign_key="account.id", primary_key=True, ondelete="CASCADE")
    kind: str = Field(max_length=32, primary_key=True)
    created_at: datetime = created_field()
