"""Server-side sessions, single-use tokens and sign-in attempts (for throttling)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Index
from sqlmodel import Field, SQLModel

from portal.models._base import created_field


class AuthSession(SQLModel, table=True):
    """A signed-in browser. Only the SHA-256 of the opaque cookie token is stored."""

    __tablename__ = "auth_session"

    id: int = Field(default=None, primary_key=True)
    token_hash: str = Field(max_length=64, unique=True, index=True)
    account_id: int = Field(foreign_key="account.id", index=True, ondelete="CASCADE")
    created_at: datetime = created_field()
    last_seen_at: datetime = created_field()
    idle_expires_at: datetime
    absolute_expires_at: datetime
    revoked_at: datetime | None = None
    user_agent: str | None = Field(default=None, max_length=512)
    ip_address: str | None = Field(default=None, max_length=64)


class OneTimeToken(SQLModel, table=True):
    """E-mail verification and password-reset links: hashed, single use, expiring."""

    __tablename__ = "one_time_token"

    id: int = Field(default=None, primary_key=True)
    token_hash: str = Field(max_length=64, unique=True, index=True)
    account_id: int = Field(foreign_key="account.id", index=True, ondelete="CASCADE")
    # verify-email | verify-work-email | reset-password
    purpose: str = Field(max_length=32)
    # The address the link is bound to (verification links).
    email: str | None = Field(default=None, max_length=320)
    created_at: datetime = created_field()
    expires_at: datetime
    used_at: datetime | None = None


class LoginAttempt(SQLModel, table=True):
    """One failed sign-in or reset request, counted per account and per client address."""

    __tablename__ = "login_attempt"
    __table_args__ = (Index("ix_login_attempt_key_created", "key", "created_at"),)

    id: int = Field(default=None, primary_key=True)
    key: str = Field(max_length=400)  # 'account:<email>' or 'ip:<address>' or 'reset:<...>'
    created_at: datetime = created_field()
