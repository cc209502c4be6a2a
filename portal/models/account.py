"""Accounts: who signs in, with which e-mails and login methods, and their staff role."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Index, UniqueConstraint
from sqlmodel import Field, SQLModel

from portal.models._base import created_field, json_field, utcnow


class Account(SQLModel, table=True):
    __tablename__ = "account"
    # Staff's participants table: newest first.
    __table_args__ = (Index("ix_account_created_id", "created_at", "id"),)

    id: int = Field(default=None, primary_key=True)
    # Personal e-mail, stored lowercased; unique across accounts.
    email: str | None = Field(default=None, max_length=320, unique=True, index=True)
    email_verified_at: datetime | None = None
    work_email: str | None = Field(default=None, max_length=320, unique=True, index=True)
    work_email_verified_at: datetime | None = None
    # Where rewards links are sent (migration 0012); the sign-in e-mail (or the work e-mail) when not set. A payout
    # is not resent for 48 hours after it changes (portal/domain/payouts.py).
    payment_email: str | None = Field(default=None, max_length=320)
    payment_email_changed_at: datetime | None = None
    # Tax (migration 0012): staff may hold payouts until the participant's tax details are on file.
    tax_hold_at: datetime | None = None
    tax_details_at: datetime | None = None
    # Older e-mail-and-password accounts; LinkedIn/Google accounts have none.
    password_hash: str | None = Field(default=None, max_length=255)
    password_changed_at: datetime | None = None
    is_registration_complete: bool = Field(default=False)
    # Profile stage: 'new', 'registered', 'completed' ('completed' counts towards verification).
    stage: str = Field(default="new", max_length=32)
    verified: bool = Field(default=False)
    # Staff role: None for participants, else super-admin | team-manager | team-owner.
    staff_role: str | None = Field(default=None, max_length=32)
    is_subscribed_to_referral: bool = Field(default=False)
    referral_code: str | None = Field(default=None, max_length=32, unique=True)
    last_login_method: str | None = Field(default=None, max_length=16)
    last_login_at: datetime | None = None
    # Tracking data of the sign-up (utm_*, li_fat_id, RR_WCID, RR_WCID_TTL, REFERRALCODE).
    signup_tracking: dict[str, Any] = json_field(dict)
    removed_at: datetime | None = None
    # 'Delete my account' (migration 0018): the person's data erased, the row kept (with removed_at) for the ledger.
    deleted_at: datetime | None = None
    created_at: datetime = created_field()
    updated_at: datetime = Field(default_factory=utcnow, nullable=False)


class LoginIdentity(SQLModel, table=True):
    """A LinkedIn or Google login bound to an account, keyed on (provider, subject)."""

    __tablename__ = "login_identity"
    __table_args__ = (
        UniqueConstraint("provider", "subject", name="uq_login_identity_provider_subject"),
        # At most one LinkedIn and one Google login per account.
        Index("uq_login_identity_account_provider", "account_id", "provider", unique=True),
    )

    id: int = Field(default=None, primary_key=True)
    account_id: int = Field(foreign_key="account.id", index=True, ondelete="CASCADE")
    provider: str = Field(max_length=16)  # linkedin | google
    subject: str = Field(max_length=255)
    email: str | None = Field(default=None, max_length=320)
    created_at: datetime = created_field()
