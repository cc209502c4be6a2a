"""Two-factor sign-in with an authenticator app (issue 40, item 1; migration 0017)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Index
from sqlmodel import Field, SQLModel

from portal.models._base import created_field


class TwoFactor(SQLModel, table=True):
    """An account's authenticator: its TOTP secret (encrypted with a key derived from SECRET_KEY), on once
    `enabled_at` is set (a secret being set up has none), and the last 30-second step a code was used for (a code
    works once)."""

    __tablename__ = "two_factor"

    account_id: int = Field(foreign_key="account.id", primary_key=True, ondelete="CASCADE")
    secret: str = Field(max_length=255)
    enabled_at: datetime | None = None
    last_used_step: int = Field(default=0)
    created_at: datetime = created_field()


class RecoveryCode(SQLModel, table=True):
    """A single-use recovery code: only its SHA-256 is kept."""

    __tablename__ = "recovery_code"
    __table_args__ = (Index("uq_recovery_code_account_hash", "account_id", "code_hash", unique=True),)

    id: int = Field(default=None, primary_key=True)
    account_id: int = Field(foreign_key="account.id", index=True, ondelete="CASCADE")
    code_hash: str = Field(max_length=64)
    used_at: datetime | None = None
    created_at: datetime = created_field()
