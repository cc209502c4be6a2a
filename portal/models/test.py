"""Tests that participants take, and the qualifications they ask for."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlmodel import Field, SQLModel

from portal.models._base import created_field, json_field, utcnow


class Test(SQLModel, table=True):
    __tablename__ = "test"
    __test__ = False  # not a pytest test class

    id: int = Field(default=None, primary_key=True)
    name: str = Field(max_length=200)
    # draft | ready-to-launch | running | completed | removed | stopped | scheduled
    status: str = Field(default="draft", max_length=32, index=True)
    # custom | b2b | mturk | external (the external research-participant service)
    panel: str = Field(default="b2b", max_length=16)
    # The product type, also called pricing tier (survey, landing-page, pricing-test, ...).
    product_type: str = Field(max_length=40)
    audience_country: str = Field(default="US", max_length=2)
    url: str | None = Field(default=None, max_length=2000)
    screenshot_url: str | None = Field(default=None, max_length=2000)
    pricing_url: str | None = Field(default=None, max_length=2000)
    pricing_screenshot_url: str | None = Field(default=None, max_length=2000)
    frame_of_mind: str | None = None
    # testContext.welcomeModal {title, body, button}
    welcome_modal: dict[str, Any] = json_field(dict)
    # Survey definition {welcomePage, thankYouPage, questions[]}; validated on import.
    survey: dict[str, Any] = json_field(dict)
    # Highlight tests: questions by block {first-impression: [...], post-test: [...]}.
    questions: dict[str, Any] = json_field(dict)
    # Highlight areas [{from: [x,y], to: [x,y], questions: [...]}] in percent.
    selected_areas: list[dict[str, Any]] = json_field(list)
    preference_test: dict[str, Any] = json_field(dict)
    # The screener, correct answers included: never sent to the browser as is.
    screener_question: dict[str, Any] | None = json_field(lambda: None, nullable=True)
    is_freemium: bool = Field(default=False)
    video_recorder_url: str | None = Field(default=None, max_length=2000)
    session_seconds: int = Field(default=3600)  # 3600 | 900 | 300
    # Quotas: total participants, and per seniority level.
    participant_limit: int | None = None
    seniority_limits: dict[str, int] = json_field(dict)
    is_surveys_conditional_enabled: bool = Field(default=True)
    # Payout for the participant, in cents.
    payout_cents: int = Field(default=2000)
    created_at: datetime = created_field()
    launched_at: datetime | None = None
    updated_at: datetime = Field(default_factory=utcnow, nullable=False)


class TestQualification(SQLModel, table=True):
    __tablename__ = "test_qualification"
    __test__ = False

    test_id: int = Field(foreign_key="test.id", primary_key=True, ondelete="CASCADE")
    qualification_id: int = Field(foreign_key="qualification.id", primary_key=True, index=True)
