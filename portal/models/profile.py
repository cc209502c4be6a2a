"""The participant profile (one per account) and its links to reference data."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Index
from sqlmodel import Field, SQLModel

from portal.models._base import created_field, json_field, utcnow


class ParticipantProfile(SQLModel, table=True):
    __tablename__ = "participant_profile"
    __table_args__ = (
        # Staff's participants table sorted by name or country, a page read in order (services/admin/participants.py);
        # the country filter. Searches use trigram indexes (migration 0007, PostgreSQL only).
        Index("ix_participant_profile_last_name_id", "last_name", "account_id"),
        Index("ix_participant_profile_country_id", "country", "account_id"),
    )

    account_id: int = Field(foreign_key="account.id", primary_key=True, ondelete="CASCADE")
    first_name: str | None = Field(default=None, max_length=100)
    last_name: str | None = Field(default=None, max_length=100)
    has_anonymization_enabled: bool = Field(default=False)
    phone_number: str | None = Field(default=None, max_length=32)
    linkedin: str | None = Field(default=None, max_length=300)
    linkedin_privacy: bool = Field(default=False)
    has_experience: bool | None = None
    birth_year: int | None = None
    country: str | None = Field(default=None, max_length=2)  # ISO 3166-1 alpha-2
    state: str | None = Field(default=None, max_length=16)  # ISO 3166-2 code
    employer_hq_country: str | None = Field(default=None, max_length=2)
    job_title: str | None = Field(default=None, max_length=200)
    experience_levels: list[str] = json_field(list)  # seniority keys, at most 2
    company_size_id: str | None = Field(default=None, foreign_key="company_size.id")
    company_name: str | None = Field(default=None, max_length=200)
    languages: list[str] = json_field(list)
    gender: str | None = Field(default=None, max_length=64)
    pronoun: str | None = Field(default=None, max_length=64)
    gender_custom: str | None = Field(default=None, max_length=100)
    sex_orientation: str | None = Field(default=None, max_length=64)
    sex_orientation_custom: str | None = Field(default=None, max_length=100)
    race: str | None = Field(default=None, max_length=64)
    ethnicity: str | None = Field(default=None, max_length=64)
    veteran: str | None = Field(default=None, max_length=32)
    demo_product_opt_in_status: bool | None = None
    # Values before the last change, highlighted for staff.
    old_data: dict[str, Any] = json_field(dict)
    # The LinkedIn profile as received at sign-up (prefills 'Review your information').
    linkedin_profile: dict[str, Any] = json_field(dict)
    updated_at: datetime = Field(default_factory=utcnow, nullable=False)


class ProfileIndustry(SQLModel, table=True):
    __tablename__ = "profile_industry"

    account_id: int = Field(foreign_key="participant_profile.account_id", primary_key=True, ondelete="CASCADE")
    industry_id: int = Field(foreign_key="industry.id", primary_key=True, index=True)


class ProfileRole(SQLModel, table=True):
    __tablename__ = "profile_role"

    account_id: int = Field(foreign_key="participant_profile.account_id", primary_key=True, ondelete="CASCADE")
    role_id: int = Field(foreign_key="role.id", primary_key=True, index=True)


class ProfileAudience(SQLModel, table=True):
    __tablename__ = "profile_audience"

    account_id: int = Field(foreign_key="participant_profile.account_id", primary_key=True, ondelete="CASCADE")
    audience_id: int = Field(foreign_key="audience.id", primary_key=True, index=True)


class ProfileChangeRequest(SQLModel, table=True):
    """A participant's submitted profile change (the spec's change request)."""

    __tablename__ = "profile_change_request"
    __table_args__ = (Index("ix_profile_change_request_status_created", "status", "created_at"),)

    id: int = Field(default=None, primary_key=True)
    account_id: int = Field(foreign_key="account.id", index=True, ondelete="CASCADE")
    payload: dict[str, Any] = json_field(dict)
    updated_by_admin: bool = Field(default=False)
    created_at: datetime = created_field()
    # The values the change replaced (the same shape as payload), shown beside the new ones to staff.
    previous: dict[str, Any] = json_field(dict)
    # pending (a participant's change, waiting for staff) | approved | declined (the old values restored).
    status: str = Field(default="pending", max_length=16, sa_column_kwargs={"server_default": "pending"})
    decided_at: datetime | None = None
    decided_by_id: int | None = None
