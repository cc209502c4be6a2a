"""Answers of /api/v1/participants (never a password hash, a token or any other secret)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field


class ParticipantOut(BaseModel):
    id: int
    name: str = Field(description="First and last name ('' when not given).")
    email: str | None
    work_email: str | None
    country: str | None = Field(description="ISO 3166-1 alpha-2 code.")
    country_name: str | None
    verified: bool = Field(description="Whether staff verified the participant's profile.")
    status: Literal["active", "deactivated", "deleted"]
    created_at: datetime


class ParticipantDetailOut(ParticipantOut):
    email_verified: bool
    work_email_verified: bool
    profile: dict[str, Any] = Field(description="The profile form's values, as the staff page shows them.")
    previous_values: dict[str, Any] = Field(description="The values before the participant's last change.")
    industries: list[str]
    roles: list[str]
    audiences: list[str]
    linkedin_title: str | None
    notes: list[str] = Field(description="What the staff page notes about the account.")


class VerifiedOut(ParticipantOut):
    changed: bool = Field(description="False when the participant was already so.")
