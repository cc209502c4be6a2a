"""A problem a participant reported while taking a test (issue 38, item 4)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Index
from sqlmodel import Field, SQLModel

from portal.models._base import created_field


class ProblemReport(SQLModel, table=True):
    """One report: who (their session), which test, the category and the text. `handled_at`: staff resumed or
    closed the test since (the pause rule counts the reporters of reports not handled yet)."""

    __tablename__ = "problem_report"
    __table_args__ = (
        Index("ix_problem_report_test_handled", "test_id", "handled_at"),
        Index("ix_problem_report_created", "created_at"),
    )

    id: int = Field(default=None, primary_key=True)
    test_id: int = Field(foreign_key="test.id", ondelete="CASCADE")
    session_id: int | None = Field(default=None, foreign_key="review_session.id", ondelete="SET NULL")
    account_id: int | None = Field(default=None, foreign_key="account.id", ondelete="SET NULL")
    respondent_key: str = Field(max_length=300)
    category: str = Field(max_length=32)  # portal/domain/problem_reports.py CATEGORIES
    text: str = Field(max_length=2000)
    created_at: datetime = created_field()
    seen_at: datetime | None = None  # a staff member opened the reports page after it came in
    handled_at: datetime | None = None
    outcome: str | None = Field(default=None, max_length=16)  # resumed | closed
