"""Captcha tokens already spent: a token is good for one sign-in or sign-up only."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Field, SQLModel

from portal.models._base import created_field


class UsedCaptchaToken(SQLModel, table=True):
    __tablename__ = "used_captcha_token"

    token_hash: str = Field(primary_key=True, max_length=64)
    used_at: datetime = created_field(index=True)
