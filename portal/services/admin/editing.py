"""Staff: a test's page at /admin/tests/{id}: what it is, and its common fields edited (the import's
checks and the status rule of portal/domain/staff/editing.py, re-checked here at saving)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlmodel import Session

from portal.domain import geography
from portal.domain import invites as invite_rules
from portal.domain.definition import TestDefinitionError, parse_test_definition
from portal.domain.staff import roles
from portal.domain.staff.editing import check_form, form_of, next_statuses
from portal.domain.taking.kinds import kind_of
from portal.models import Qualification, Test
from portal.models._base import utcnow
from portal.services.admin import audit, versions
from portal.services.admin.guard import Caller, require_staff
from portal.services.admin.ids import one_id
from portal.services.definition_import import apply_definition, document_for, find_test_by_name
from portal.services.errors import ServiceError

NO_TEST = "This test does not exist."
NAME_TAKEN = "Another test is already called this: names identify tests when importing."


@dataclass(frozen=True)
class EditView:
    test_id: int
    kind: str
    product_type: str
    status: str
    form: dict[str, str]
    document: dict[str, Any]  # the definition the form edits (for the live checks)
    statuses: list[str]
    qualifications: list[str]  # every qualification name staff can choose
    countries: list[tuple[str, str]]
    updated: str


@dataclass(frozen=True)
class SaveResult:
    saved: bool
    problems: dict[str, str] = field(default_factory=dict)
    listing: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    view: EditView | None = None
    warning: str = ""  # the edit makes a new version of a test in use: saved again with confirm=version
    version: int = 0


def mark_launch(test: Test, old_status: str | None) -> None:
    """A test that starts running for the first time is launched now (day 1 of the incentive table)."""
    if test.status == "running" and old_status != "running" and test.launched_at is None:
        test.launched_at = utcnow()


def _test(session: Session, test_id: Any, *, lock: bool = False) -> Test:
    tid = one_id(test_id, NO_TEST)
    query = select(Test).where(Test.id == tid)
    test: Test | None = session.execute(query.with_for_update() if lock else query).scalar_one_or_none()
    if test is None:
        raise ServiceError(NO_TEST)
    return test


def _view(session: Session, test: Test) -> EditView:
    document = document_for(session, test)
    return EditView(
        test_id=test.id,
        kind=kind_of(test.product_type).name,
        product_type=invite_rules.product_type_label(test.product_type),
        status=test.status,
        form=form_of(document),
        document=document,
        statuses=list(next_statuses(test.status)),
        qualifications=list(session.execute(select(Qualification.name).order_by(Qualification.name)).scalars()),
        countries=geography.countries(),
        updated=test.updated_at.isoformat(),
    )


def edit_view(session: Session, *, actor_id: Caller, test_id: Any) -> EditView:
    require_staff(session, actor_id, roles.VIEW)
    return _view(session, _test(session, test_id))


def save_edit(session: Session, *, actor_id: Caller, test_id: Any, form: Any, confirm: Any = None) -> SaveResult:
    """Check the form against the test as it is now (row locked) and save it when nothing is wrong. An
    edit of what a test in use asks (its screener, welcome modal, frame of mind) is saved only once its
    new-version warning is confirmed (`confirm`: the version number the warning named)."""
    staff = require_staff(session, actor_id, roles.MANAGE_TESTS)
    test = _test(session, test_id, lock=True)
    if not isinstance(form, dict):
        raise ServiceError("Nothing to save.")
    before = document_for(session, test)
    check = check_form(before, form, test.status)
    problems = dict(check.problems)
    if "name" not in problems:
        other = find_test_by_name(session, str(check.document.get("name", "")).strip())
        if other is not None and other.id != test.id:
            problems["name"] = NAME_TAKEN
    if problems:
        return SaveResult(saved=False, problems=problems, listing=check.listing or [f"name: {NAME_TAKEN}"])
    old_status = test.status
    definition = parse_test_definition(check.document)
    warning = versions.check_change(session, test, definition.columns, confirm)
    if warning is not None:
        if warning.problem:
            return SaveResult(saved=False, problems={"": warning.problem}, listing=[warning.problem])
        return SaveResult(saved=False, warning=warning.message, version=warning.version)
    versions.mark(session, staff.account_id, "edit")
    try:
        apply_definition(session, test, definition)
    except TestDefinitionError as e:
        session.rollback()
        return SaveResult(
            saved=False, problems={"qualifications": e.errors[0].message}, listing=[str(x) for x in e.errors]
        )
    mark_launch(test, old_status)
    after = document_for(session, test)
    changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
    if changed:
        audit.record(
            session,
            staff,
            "test.status" if changed == ["status"] else "test.edit",
            "test",
            test.id,
            before={k: before.get(k) for k in changed},
            after={k: after.get(k) for k in changed},
        )
    return SaveResult(saved=True, changed=changed, view=_view(session, test))
