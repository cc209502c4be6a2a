"""The version of a test's definition a session is taken on (portal/domain/versions.py).

A session starts on the test's newest version and seals it (from then on it never changes: an edit makes
the next number, portal/models/test.py). The session, and the review it ends in, keep that version, so
someone in the middle of a test finishes on the version they started, and staff always see a review with
the questions it answered.

(portal/services/taking/definitions.py keeps each version's definition in memory by version id.)
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select, update
from sqlmodel import Session

from portal.domain.versions import VERSIONED, columns_of
from portal.models import Test, TestVersion


def newest_id(session: Session, test_id: int) -> int | None:
    """The id of the test's newest version (None: a test without versions, which the ORM never makes)."""
    found: int | None = session.execute(
        select(TestVersion.id).where(TestVersion.test_id == test_id).order_by(TestVersion.number.desc()).limit(1)
    ).scalar_one_or_none()
    return found


def seal(session: Session, version_id: int) -> None:
    """Nobody may change this version any more: a session starts on it. A write only while it is open,
    so it costs nothing once the version is sealed, and an edit refilling it at this moment either comes
    first (the session is taken on the edit) or finds it sealed and makes the next version."""
    session.execute(
        update(TestVersion).where(TestVersion.id == version_id, TestVersion.sealed.is_(False)).values(sealed=True)
    )


def columns(session: Session, version_id: int | None, test_id: int) -> dict[str, Any] | None:
    """The columns of a version of this test (None when it is no version of it)."""
    if version_id is None:
        return None
    found = session.execute(
        select(TestVersion.columns).where(TestVersion.id == version_id, TestVersion.test_id == test_id)
    ).scalar_one_or_none()
    if found is None:
        return None
    return dict(found) if isinstance(found, dict) else {}


def as_of(test: Test, version_columns: dict[str, Any] | None) -> Test:
    """The test as it was on a version: a detached copy of the row with the version's columns in place
    (the row itself when there is no version to apply)."""
    if version_columns is None:
        return test
    values = test.model_dump()
    values.update({name: version_columns.get(name) for name in VERSIONED if name in version_columns})
    if values.get("product_type") is None:
        values["product_type"] = test.product_type
    if values.get("is_surveys_conditional_enabled") is None:
        values["is_surveys_conditional_enabled"] = test.is_surveys_conditional_enabled
    return Test(**values)


def test_on(session: Session, test: Test, version_id: int | None) -> Test:
    """The test as a session or review on `version_id` sees it."""
    return as_of(test, columns(session, version_id, test.id))


__all__ = ["as_of", "columns", "columns_of", "newest_id", "seal", "test_on"]
