"""The partner platforms' round trips (issue 39, item 5; migration 0021): who arrived from a partner, verified by
the server, and the reports owed to the partners (an outbox of its own, delivered by
portal/services/partner_sender.py)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Index
from sqlmodel import Field, SQLModel

from portal.models._base import created_field, json_field


class PartnerEntry(SQLModel, table=True):
    """One arrival on /test/{id}/rate from a partner's link, checked by the server (the research service said
    invited, the panel's signature matched, or a crowd-work assignment named). `token` is handed to that browser
    only; its first entry binds the row to the browser's respondent key, which from then on is admitted."""

    __tablename__ = "partner_entry"
    __table_args__ = (Index("ix_partner_entry_test_respondent", "test_id", "respondent_key"),)

    id: int = Field(default=None, primary_key=True)
    partner: str = Field(max_length=16)  # domain/partners.PARTNERS
    test_id: int = Field(foreign_key="test.id", ondelete="CASCADE")
    token: str = Field(max_length=64, unique=True)
    respondent_key: str | None = Field(default=None, max_length=300)
    project_id: str | None = Field(default=None, max_length=100)
    screener_response_id: str | None = Field(default=None, max_length=100)
    assignment_id: str | None = Field(default=None, max_length=100, index=True)
    worker_id: str | None = Field(default=None, max_length=100)
    hit_id: str | None = Field(default=None, max_length=100)
    submit_to: str | None = Field(default=None, max_length=300)
    panel: str | None = Field(default=None, max_length=100)
    rid: str | None = Field(default=None, max_length=100)
    # What the partner told about them (the research service's screenerResponseData).
    data: dict[str, Any] = json_field(dict)
    review_id: int | None = Field(default=None, foreign_key="review.id", ondelete="SET NULL", index=True)
    # The outcome reported to the partner (complete, screenout, overquota, quality); set once.
    outcome: str | None = Field(default=None, max_length=16)
    created_at: datetime = created_field()


class PartnerCallback(SQLModel, table=True):
    """A report owed to a partner, written in the transaction of the change it reports, delivered with retries.
    The partner receives `Idempotency-Key: partner-callback-<id>` and keeps one report per key."""

    __tablename__ = "partner_callback"
    __table_args__ = (Index("ix_partner_callback_pending", "delivered_at", "next_attempt_at"),)

    id: int = Field(default=None, primary_key=True)
    partner: str = Field(max_length=16)
    entry_id: int = Field(foreign_key="partner_entry.id", ondelete="CASCADE", index=True)
    outcome: str = Field(max_length=16)
    payload: dict[str, Any] = json_field(dict)
    created_at: datetime = created_field()
    attempts: int = Field(default=0)
    next_attempt_at: datetime = created_field()
    delivered_at: datetime | None = None
    last_error: str | None = Field(default=None, max_length=1000)
