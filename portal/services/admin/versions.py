"""Staff: a test's versions, what changed between two, and the one check every edit of a definition makes.

Every way staff change what a test asks (the import, the details page, the builder, the highlight-area
editor, the images page) asks `new_version_warning` first: when the newest version is in use (people
are taking it or have submitted on it) and the edit changes it, the edit is not written until staff
confirm the warning, which says how many are in progress and done, by naming that version's number
(`confirm`). The write itself makes the version (portal/models/test.py), so even an edit that races a
participant starting never changes a version someone is on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import func, select
from sqlmodel import Session

from portal.domain import versions as rules
from portal.domain.definition import TestDefinitionError, parse_test_definition, validate_test_definition
from portal.domain.definition_document import document_of
from portal.domain.staff import roles
from portal.domain.taking.access import GRACE_SECONDS
from portal.models import Account, Review, ReviewSession, Test, TestVersion
from portal.services import row_locks
from portal.services.admin import audit
from portal.services.admin.guard import Caller, require_staff
from portal.services.admin.ids import one_id
from portal.services.definition_import import apply_definition, document_for, find_test_by_name, qualification_names
from portal.services.errors import ServiceError

NO_TEST = "This test does not exist."
NO_VERSION = "This test has no such version."
NAME_TAKEN = "Another test is already called this: names identify tests when importing."
SOURCE_LABELS = {
    "migration": "Before versions were kept",
    "import": "Imported file",
    "edit": "Details page",
    "builder": "Builder",
    "areas": "Highlight areas",
    "images": "Images",
    "new": "New test",
    "duplicate": "Duplicated",
    "script": "Command line or script",
    "api": "REST API",
}


def usage(session: Session, version_id: int, now: datetime | None = None) -> rules.Usage:
    """How many are taking this version now (a session not submitted whose time has not run out) and how
    many reviews were submitted on it."""
    now = now or datetime.now(UTC)
    live_after = now - timedelta(seconds=GRACE_SECONDS)
    in_progress = session.execute(
        select(func.count())
        .select_from(ReviewSession)
        .where(
            ReviewSession.version_id == version_id,
            ReviewSession.status == "active",
            ReviewSession.deadline_at >= live_after,
        )
    ).scalar_one()
    done = session.execute(select(func.count()).select_from(Review).where(Review.version_id == version_id)).scalar_one()
    return rules.Usage(in_progress=int(in_progress), done=int(done))


def newest(session: Session, test_id: int) -> TestVersion | None:
    found: TestVersion | None = session.execute(
        select(TestVersion).where(TestVersion.test_id == test_id).order_by(TestVersion.number.desc()).limit(1)
    ).scalar_one_or_none()
    return found


@dataclass(frozen=True)
class VersionWarning:
    """An edit that would make a new version: what staff confirm, and the number they confirm it with."""

    message: str
    version: int  # the number in use now (confirm=version saves as version + 1)
    problem: str = ""  # the edit cannot be made at all (e.g. the product type of a test in use)


def check_change(session: Session, test: Test, after: dict[str, Any], confirm: Any = None) -> VersionWarning | None:
    """None when `after` (the test's columns as the edit leaves them) can be written now: it changes
    nothing versioned, or the newest version is not in use, or staff confirmed this version's warning."""
    current = newest(session, test.id)
    if current is None or not current.sealed:
        return None
    new_columns = rules.columns_of({**test.model_dump(), **after})
    if rules.same_columns(current.columns, new_columns):
        return None
    if new_columns.get("product_type") != (current.columns.get("product_type") or test.product_type):
        return VersionWarning(
            message=rules.PRODUCT_TYPE_FIXED, version=current.number, problem=rules.PRODUCT_TYPE_FIXED
        )
    if isinstance(confirm, int) and not isinstance(confirm, bool) and confirm == current.number:
        return None
    return VersionWarning(
        message=rules.new_version_warning(usage(session, current.id), current.number), version=current.number
    )


def in_use_note(session: Session, test: Test) -> str:
    """What a change made without a confirm step (an image upload) does to a test in use ('' when its newest
    version is not in use): said before staff make it."""
    current = newest(session, test.id)
    if current is None or not current.sealed:
        return ""
    used = usage(session, current.id)
    return (
        f"Version {current.number} of this test is in use ({used.in_progress} taking it now, {used.done} submitted). "
        f"A new image makes version {current.number + 1}: people in the middle of the test keep the images of "
        f"version {current.number}."
    )


def mark(session: Session, staff_id: int, source: str) -> None:
    """Who and what make the version the next write of this transaction makes (portal/models/test.py)."""
    session.info["version_by"] = staff_id
    session.info["version_source"] = source


# --- the builder's save ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class SaveOutcome:
    saved: bool
    problems: dict[str, str] = field(default_factory=dict)  # definition path -> first message
    listing: list[str] = field(default_factory=list)
    warning: str = ""  # confirm it by saving again with confirm=version
    version: int = 0  # the newest version after the save (or the one in use, with a warning)
    new_version: bool = False


def _test(session: Session, test_id: Any, *, lock: bool = False) -> Test:
    number = one_id(test_id, NO_TEST)
    test = row_locks.locked(session, Test, number) if lock else session.get(Test, number)
    if test is None:
        raise ServiceError(NO_TEST)
    return test


def save_document(
    session: Session, *, actor_id: Caller, test_id: Any, document: Any, confirm: Any = None, source: str = "builder"
) -> SaveOutcome:
    """Save a whole definition document as the test's definition (the import's checks). A test in use
    gets a new version only after its warning is confirmed; its status is not changed here."""
    staff = require_staff(session, actor_id, roles.MANAGE_TESTS)
    test = _test(session, test_id, lock=True)
    if not isinstance(document, dict):
        raise ServiceError("Nothing to save.")
    document = {**document, "status": test.status}
    errors = validate_test_definition(document)
    problems: dict[str, str] = {}
    for error in errors:
        problems.setdefault(error.path, error.message)
    if not errors:
        other = find_test_by_name(session, str(document.get("name", "")).strip())
        if other is not None and other.id != test.id:
            problems["name"] = NAME_TAKEN
    if problems:
        return SaveOutcome(saved=False, problems=problems, listing=[str(e) for e in errors] or [f"name: {NAME_TAKEN}"])
    definition = parse_test_definition(document)
    warning = check_change(session, test, definition.columns, confirm)
    if warning is not None:
        if warning.problem:
            return SaveOutcome(saved=False, problems={"productType": warning.problem}, listing=[warning.problem])
        return SaveOutcome(saved=False, warning=warning.message, version=warning.version)
    current = newest(session, test.id)
    before_number = current.number if current else 0
    before = document_for(session, test)
    mark(session, staff.account_id, source)
    try:
        apply_definition(session, test, definition)
    except TestDefinitionError as e:
        session.rollback()
        return SaveOutcome(
            saved=False, problems={e.errors[0].path: e.errors[0].message}, listing=[str(x) for x in e.errors]
        )
    after = document_for(session, test)
    current = newest(session, test.id)
    number = current.number if current else before_number
    changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
    if changed:  # a save that changes nothing (a retry, a second tab) leaves no audit row
        audit.record(
            session,
            staff,
            "test.edit",
            "test",
            test.id,
            before={"version": before_number, **{k: before.get(k) for k in changed}},
            after={"version": number, "source": source, **{k: after.get(k) for k in changed}},
        )
    return SaveOutcome(saved=True, version=number, new_version=number != before_number)


# --- the versions page ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class VersionRow:
    number: int
    created: str
    by: str
    source: str
    in_progress: int
    done: int
    sealed: bool


@dataclass(frozen=True)
class VersionsView:
    name: str
    rows: list[VersionRow]


def list_versions(session: Session, *, actor_id: Caller, test_id: Any) -> list[VersionRow]:
    return versions_view(session, actor_id=actor_id, test_id=test_id).rows


def versions_view(session: Session, *, actor_id: Caller, test_id: Any) -> VersionsView:
    """The test's name and every version of it, newest first, with how many are taking it and have
    submitted on it."""
    require_staff(session, actor_id, roles.VIEW)
    test = _test(session, test_id)
    found = session.execute(
        select(TestVersion, Account.email)
        .outerjoin(Account, Account.id == TestVersion.created_by_id)
        .where(TestVersion.test_id == test.id)
        .order_by(TestVersion.number.desc())
    ).all()
    rows = []
    for version, email in found:
        used = usage(session, version.id)
        rows.append(
            VersionRow(
                number=version.number,
                created=version.created_at.strftime("%Y-%m-%d %H:%M"),
                by=email or "",
                source=SOURCE_LABELS.get(version.source, version.source),
                in_progress=used.in_progress,
                done=used.done,
                sealed=bool(version.sealed),
            )
        )
    return VersionsView(name=test.name, rows=rows)


def _document(session: Session, test: Test, number: int) -> dict[str, Any]:
    version = session.execute(
        select(TestVersion).where(TestVersion.test_id == test.id, TestVersion.number == number)
    ).scalar_one_or_none()
    if version is None:
        raise ServiceError(NO_VERSION)
    values = {**test.model_dump(), **{k: v for k, v in version.columns.items() if k in rules.VERSIONED}}
    document = document_of(values, qualification_names(session, test.id))
    return {k: v for k, v in document.items() if k in rules.VERSIONED_FIELDS}


def version_document(session: Session, *, actor_id: Caller, test_id: Any, number: Any) -> dict[str, Any]:
    """What version `number` asks, in the definition's spelling (its versioned fields)."""
    require_staff(session, actor_id, roles.VIEW)
    return _document(session, _test(session, test_id), _number(number))


def _number(value: Any) -> int:
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ServiceError(NO_VERSION)
    return value


def compare(session: Session, *, actor_id: Caller, test_id: Any, before: Any, after: Any) -> list[rules.Change]:
    """What changed from version `before` to version `after` of the test."""
    require_staff(session, actor_id, roles.VIEW)
    test = _test(session, test_id)
    return rules.changes(_document(session, test, _number(before)), _document(session, test, _number(after)))
