"""Referral programmes and the people referred through them."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import UniqueConstraint
from sqlmodel import Field, SQLModel

from portal.models._base import created_field


class ReferralProgram(SQLModel, table=True):
    __tablename__ = "referral_program"

    id: int = Field(default=None, primary_key=True)
    name: str = Field(max_length=120)
    widget_url: str | None = Field(default=None, max_length=2000)
    bonus_cents: int = Field(default=2000)
    active: bool = Field(default=True)


class ReferralMember(SQLModel, table=True):
    """A referee: credited to the referrer once their first test reward is paid."""

    __tablename__ = "referral_member"
    __table_args__ = (UniqueConstraint("program_id", "email", name="uq_referral_member_program_email"),)

    id: int = Field(default=None, primary_key=True)
    program_id: int = Field(foreign_key="referral_program.id", index=True)
    referrer_account_id: int = Field(foreign_key="account.id", index=True, ondelete="CASCADE")
    referee_account_id: int | None = Field(default=None, foreign_key="account.id", unique=True, ondelete="CASCADE")
    first_name: str | None = Field(default=None, max_length=100)
    email: str = Field(max_length=320)
    created_at: datetime = created_field()
    reward_cents: int | None = None
    reward_paid_at: datetime | None = None
