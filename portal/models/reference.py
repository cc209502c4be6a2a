"""Reference data: company sizes, industries, roles, audiences, qualifications."""

from __future__ import annotations

from sqlmodel import Field, SQLModel


class CompanySize(SQLModel, table=True):
    __tablename__ = "company_size"

    id: str = Field(primary_key=True, max_length=32)  # the segment key, e.g. 'small'
    min_size: int
    max_size: int | None = None
    without_max_size: bool = Field(default=False)
    segment: str = Field(max_length=32)
    sort_order: int = Field(default=0, index=True)


class Industry(SQLModel, table=True):
    __tablename__ = "industry"

    id: int = Field(default=None, primary_key=True)
    name: str = Field(max_length=120, unique=True, index=True)
    active_for_testers: bool = Field(default=True)


class Role(SQLModel, table=True):
    __tablename__ = "role"

    id: int = Field(default=None, primary_key=True)
    name: str = Field(max_length=120, unique=True, index=True)


class Audience(SQLModel, table=True):
    __tablename__ = "audience"

    id: int = Field(default=None, primary_key=True)
    name: str = Field(max_length=120, unique=True)
    # mturk (consumer) | b2b | custom
    type: str = Field(default="b2b", max_length=16)


class Qualification(SQLModel, table=True):
    __tablename__ = "qualification"

    id: int = Field(default=None, primary_key=True)
    name: str = Field(max_length=200, unique=True)
    level: str | None = Field(default=None, max_length=32)
    # Public qualifications let a test be taken without signing in.
    is_public: bool = Field(default=False)
