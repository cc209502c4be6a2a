"""Text messages (issue 38, item 2): a participant's phone and its confirmation, the kinds they chose as texts, and
the texts to send (an outbox of its own, delivered by portal/services/sms_sender.py)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Index
from sqlmodel import Field, SQLModel

from portal.models._base import created_field


class PhoneContact(SQLModel, table=True):
    """An account's mobile number: confirmed by a code, stopped by a STOP reply."""

    __tablename__ = "phone_contact"
    __table_args__ = (Index("ix_phone_contact_phone", "phone"),)

    account_id: int = Field(foreign_key="account.id", primary_key=True, ondelete="CASCADE")
    phone: str = Field(max_length=20)  # E.164
    confirmed_at: datetime | None = None
    stopped_at: datetime | None = None  # a STOP reply; START or a new confirmation clears it
    code_hash: str | None = Field(default=None, max_length=64)  # HMAC of the pending code (portal/domain/sms.py)
    code_expires_at: datetime | None = None
    code_tries: int = Field(default=0)
    updated_at: datetime = created_field()


class SmsOptIn(SQLModel, table=True):
    """A notification kind an account chose to get as a text too."""

    __tablename__ = "sms_opt_in"

    account_id: int = Field(foreign_key="account.id", primary_key=True, ondelete="CASCADE")
    kind: str = Field(max_length=32, primary_key=True)
    created_at: datetime = created_field()


class OutboxSms(SQLModel, table=True):
    """A text to send, written in the transaction of the change it announces (a code or a notification)."""

    __tablename__ = "outbox_sms"
    __table_args__ = (
        Index("ix_outbox_sms_pending", "sent_at", "next_attempt_at"),
        # The limits on codes: the codes sent to an account and to a number in the last hour.
        Index("ix_outbox_sms_account_kind_created", "account_id", "kind", "created_at"),
        Index("ix_outbox_sms_to_kind_created", "to_number", "kind", "created_at"),
    )

    id: int = Field(default=None, primary_key=True)
    account_id: int | None = Field(default=None, foreign_key="account.id", ondelete="SET NULL")
    to_number: str = Field(max_length=20)
    body: str = Field(max_length=1600)
    kind: str = Field(max_length=32)  # 'code' or a notification kind
    created_at: datetime = created_field()
    attempts: int = Field(default=0)
    next_attempt_at: datetime = created_field()
    sent_at: datetime | None = None
    provider_id: str | None = Field(default=None, max_length=64)  # Twilio's message SID
    last_error: str | None = Field(default=None, max_length=1000)
