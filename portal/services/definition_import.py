"""Import a test from its JSON definition (docs/test-format.md): validate, then upsert by name."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session, select

from portal.domain.definition import TestDefinition, TestDefinitionError, parse_test_definition
from portal.domain.definition_checks import DefinitionError, join
from portal.domain.definition_document import document_of
from portal.models import Qualification, Test, TestQualification
from portal.models._base import utcnow

__all__ = [
    "TestDefinitionError",
    "apply_definition",
    "document_for",
    "find_test_by_name",
    "import_test",
    "qualification_names",
]


def find_test_by_name(session: Session, name: str) -> Test | None:
    """The oldest test with this exact name (names are the natural key of imported tests)."""
    return session.exec(select(Test).where(Test.name == name).order_by(Test.id)).first()


def import_test(session: Session, data: dict[str, Any]) -> Test:
    """Create or update the test named in `data`. Raises TestDefinitionError naming the field at fault.

    Re-importing an unchanged definition writes nothing (so seeding stays idempotent).
    """
    definition = parse_test_definition(data)
    session.info.setdefault("version_source", "import")  # a version it makes says where it came from
    return apply_definition(session, find_test_by_name(session, definition.columns["name"]), definition)


def apply_definition(session: Session, test: Test | None, definition: TestDefinition) -> Test:
    """Write a valid definition to `test` (a new test when None): only what changed. Raises
    TestDefinitionError for unknown qualifications, before anything is written."""
    qualification_ids = _qualification_ids(session, definition.qualifications)
    if test is None:
        test = Test(**definition.columns)
        session.add(test)
        session.flush()
    else:
        changed = {k: v for k, v in definition.columns.items() if getattr(test, k) != v}
        for key, value in changed.items():
            setattr(test, key, value)
        if changed:
            test.updated_at = utcnow()
            session.add(test)
            session.flush()
    _sync_qualifications(session, test.id, qualification_ids)
    return test


def qualification_names(session: Session, test_id: int) -> list[str]:
    return sorted(
        session.exec(
            select(Qualification.name)
            .join(TestQualification, TestQualification.qualification_id == Qualification.id)
            .where(TestQualification.test_id == test_id)
        ).all()
    )


def document_for(session: Session, test: Test) -> dict[str, Any]:
    """The test's JSON definition, which imports back unchanged (docs/test-format.md)."""
    return document_of(test.model_dump(), qualification_names(session, test.id))


def _qualification_ids(session: Session, names: list[str]) -> list[int]:
    if not names:
        return []
    found = {q.name: q.id for q in session.exec(select(Qualification).where(Qualification.name.in_(names))).all()}
    missing = [
        DefinitionError(join("qualifications", i), f"unknown qualification {name!r}")
        for i, name in enumerate(names)
        if name not in found
    ]
    if missing:
        raise TestDefinitionError(missing)
    return [found[name] for name in names]


def _sync_qualifications(session: Session, test_id: int, wanted: list[int]) -> None:
    current = {
        link.qualification_id: link
        for link in session.exec(select(TestQualification).where(TestQualification.test_id == test_id)).all()
    }
    for qualification_id, link in current.items():
        if qualification_id not in wanted:
            session.delete(link)
    for qualification_id in wanted:
        if qualification_id not in current:
            session.add(TestQualification(test_id=test_id, qualification_id=qualification_id))
    session.flush()
