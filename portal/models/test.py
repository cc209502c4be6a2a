"""Tests that participants take, and the qualifications they ask for."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import UniqueConstraint, event, func, insert, inspect, select, update
from sqlalchemy.orm import Session as OrmSession
from sqlalchemy.orm import object_session
from sqlmodel import Field, SQLModel

from portal.domain.versions import VERSIONED, columns_of
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
    # When participants' reports paused it (status 'paused', issue 38); resuming moves open sessions' deadlines on.
    paused_at: datetime | None = None
    updated_at: datetime = Field(default_factory=utcnow, nullable=False)
    # A scheduled test starts running at this time (portal/services/admin/launches.py).
    scheduled_at: datetime | None = None
    # Exclusion window (spec section 9): people who took a test within this many days are not invited;
    # -1: anyone who ever took a test (all), 0: nobody is excluded (none), else 30, 60 or 90.
    exclusion_days: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    # The test builder's working copy (a definition document, possibly incomplete), kept until it is
    # saved as the test's definition or discarded. None: the builder shows the saved definition.
    draft_document: dict[str, Any] | None = json_field(lambda: None, nullable=True)


class TestQualification(SQLModel, table=True):
    __tablename__ = "test_qualification"
    __test__ = False

    test_id: int = Field(foreign_key="test.id", primary_key=True, ondelete="CASCADE")
    qualification_id: int = Field(foreign_key="qualification.id", primary_key=True, index=True)


class TestVersion(SQLModel, table=True):
    """One numbered version of a test's definition: what participants see and answer.

    `columns` holds the versioned `Test` columns (portal/domain/versions.py, VERSIONED) as they were;
    the test row always holds its newest version's. A version is sealed when the first review session
    starts on it and never changes after that; an edit of a sealed version makes the next number.
    """

    __tablename__ = "test_version"
    __table_args__ = (UniqueConstraint("test_id", "number", name="uq_test_version_number"),)
    __test__ = False

    id: int = Field(default=None, primary_key=True)
    test_id: int = Field(foreign_key="test.id", index=True, ondelete="CASCADE")
    number: int
    columns: dict[str, Any] = json_field(dict)
    sealed: bool = Field(default=False)
    created_at: datetime = created_field()
    created_by_id: int | None = None  # the staff account (no foreign key: the version outlives it)
    # What made it: 'migration', 'import', 'edit', 'builder', 'areas', 'images', 'duplicate', 'new', 'script'.
    source: str = Field(default="edit", max_length=16)


# --- every change of a test's definition lands in a version -------------------------------------------
# Whatever writes the test row (the import, the editors, the image and area services, a script), its
# versioned columns end up in a version: a new test gets version 1; a change goes into its newest version
# while nobody has started on it, else into the next number. The write that refills a version names
# the state it expects (`sealed = false`), so a session sealing the version at the same moment
# (portal/services/taking/versions.py) either comes first, and the edit makes the next version, or
# waits for the edit and is taken on it. Services say beforehand what will happen (the staff warning);
# `session.info["version_by"]` / `["version_source"]` name who and what made it.


def _who(target: Test) -> tuple[int | None, str]:
    info = getattr(object_session(target), "info", {}) or {}
    by = info.get("version_by")
    return (by if isinstance(by, int) else None), str(info.get("version_source") or "script")[:16]


@event.listens_for(OrmSession, "after_transaction_end")
def _forget_who(session: OrmSession, transaction: Any) -> None:
    """Who and what made a version is said per transaction (a long-lived session must not lend it to the next)."""
    if transaction.parent is None:
        session.info.pop("version_by", None)
        session.info.pop("version_source", None)


@event.listens_for(Test, "after_insert")
def _first_version(mapper: Any, connection: Any, target: Test) -> None:
    by, source = _who(target)
    connection.execute(
        insert(TestVersion).values(
            test_id=target.id,
            number=1,
            columns=columns_of(target.model_dump()),
            sealed=False,
            created_at=utcnow(),
            created_by_id=by,
            source=source,
        )
    )


@event.listens_for(Test, "after_update")
def _next_version(mapper: Any, connection: Any, target: Test) -> None:
    state = inspect(target)
    if not any(state.attrs[name].history.has_changes() for name in VERSIONED):
        return
    columns = columns_of(target.model_dump())
    newest = connection.execute(
        select(func.max(TestVersion.number)).where(TestVersion.test_id == target.id)
    ).scalar_one_or_none()
    if newest is not None:
        refilled = connection.execute(
            update(TestVersion)
            .where(TestVersion.test_id == target.id, TestVersion.number == newest, TestVersion.sealed.is_(False))
            .values(columns=columns)
        )
        if refilled.rowcount == 1:
            return
    by, source = _who(target)
    connection.execute(
        insert(TestVersion).values(
            test_id=target.id,
            number=(newest or 0) + 1,
            columns=columns,
            sealed=False,
            created_at=utcnow(),
            created_by_id=by,
            source=source,
        )
    )
