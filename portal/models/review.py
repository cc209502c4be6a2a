"""Review sessions (a test in progress), reviews (submitted answers), rewards, screener responses."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Index, UniqueConstraint
from sqlmodel import Field, SQLModel

from portal.models._base import created_field, json_field, utcnow


class ReviewSession(SQLModel, table=True):
    """A started test: the server deadline and the draft answers, saved on every change."""

    __tablename__ = "review_session"
    __table_args__ = (Index("ix_review_session_test_respondent", "test_id", "respondent_key"),)

    id: int | None = Field(default=None, primary_key=True)
    test_id: int = Field(foreign_key="test.id", ondelete="CASCADE")
    account_id: int | None = Field(default=None, foreign_key="account.id", index=True, ondelete="CASCADE")
    # 'account:<id>' or 'respondent:<project>:<participant>' or 'worker:<id>'
    respondent_key: str = Field(max_length=300)
    started_at: datetime = created_field()
    deadline_at: datetime
    extensions: int = Field(default=0)
    # active | submitted | expired | cleared
    status: str = Field(default="active", max_length=16)
    draft_answers: dict[str, Any] = json_field(dict)
    # Where the participant is: {step, subStep, navigationHistory}.
    draft_position: dict[str, Any] = json_field(dict)
    updated_at: datetime = Field(default_factory=utcnow, nullable=False)


class Review(SQLModel, table=True):
    """Submitted answers. One per session, and one per participant and test."""

    __tablename__ = "review"
    __table_args__ = (
        UniqueConstraint("test_id", "respondent_key", name="uq_review_test_respondent"),
        Index("ix_review_account_created", "account_id", "created_at"),
        # The rewards table sorted by test type or searched: the account's reviews and their tests in one range.
        Index("ix_review_account_id_test", "account_id", "id", postgresql_include=["test_id"]),
    )

    id: int | None = Field(default=None, primary_key=True)
    test_id: int = Field(foreign_key="test.id", index=True, ondelete="CASCADE")
    account_id: int | None = Field(default=None, foreign_key="account.id", ondelete="CASCADE")
    respondent_key: str = Field(max_length=300)
    session_id: int | None = Field(default=None, foreign_key="review_session.id", unique=True)
    kind: str = Field(max_length=16)  # survey | highlight | preference
    # Answers as submitted, each text answer with its pasteMetadata when pasted.
    answers: dict[str, Any] = json_field(dict)
    worker_data: dict[str, Any] = json_field(dict)
    options_order: list[str] = json_field(list)
    survey_code: str | None = Field(default=None, max_length=64)
    created_at: datetime = created_field()


class Reward(SQLModel, table=True):
    """The payout for a review. status: PENDING | EXECUTED | FAILED | CANCELED."""

    __tablename__ = "reward"
    # The rewards table: a participant's page of ids in (created_at, id) order, from the index alone.
    __table_args__ = (
        Index("ix_reward_account_created_id", "account_id", "created_at", "id", postgresql_include=["review_id", "status"]),
    )

    id: int | None = Field(default=None, primary_key=True)
    review_id: int = Field(foreign_key="review.id", unique=True, ondelete="CASCADE")
    account_id: int | None = Field(default=None, foreign_key="account.id", ondelete="CASCADE")
    amount_cents: int
    status: str = Field(default="PENDING", max_length=16)
    paid_on: datetime | None = None
    created_at: datetime = created_field()


class ScreenerResponse(SQLModel, table=True):
    __tablename__ = "screener_response"
    __table_args__ = (UniqueConstraint("test_id", "respondent_key", name="uq_screener_test_respondent"),)

    id: int | None = Field(default=None, primary_key=True)
    test_id: int = Field(foreign_key="test.id", ondelete="CASCADE")
    account_id: int | None = Field(default=None, foreign_key="account.id", ondelete="CASCADE")
    respondent_key: str = Field(max_length=300)
    selected_answers: dict[str, Any] = json_field(dict)
    is_passed: bool
    created_at: datetime = created_field()
