"""Feature flags: on/off, a percentage of users, or per-user overrides."""

from __future__ import annotations

from sqlmodel import Field, SQLModel


class FeatureFlag(SQLModel, table=True):
    __tablename__ = "feature_flag"

    key: str = Field(primary_key=True, max_length=64)
    enabled: bool = Field(default=False)
    # 0-100: share of users (by a stable hash of the account id) that get the flag.
    percentage: int = Field(default=100)
    description: str | None = Field(default=None, max_length=300)


class FeatureFlagUser(SQLModel, table=True):
    __tablename__ = "feature_flag_user"

    flag_key: str = Field(foreign_key="feature_flag.key", primary_key=True, ondelete="CASCADE")
    account_id: int = Field(foreign_key="account.id", primary_key=True, ondelete="CASCADE")
    enabled: bool = Field(default=True)
