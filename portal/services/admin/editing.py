"""Staff: a test's page at /admin/tests/{id}: what it is, and its common fields edited (the import's
checks and the status rule of portal/domain/staff/editing.py, re-checked here at saving); its schedule;
stop and resume; what invitees earn beside its own payout."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import func, select
from sqlmodel import Session

from portal.domain import geography
from portal.domain import invites as invite_rules
from portal.domain.definition import (
    TestDefinition,
    TestDefinitionError,
    read_test_definition,
    validate_test_definition,
)
from portal.domain.definition_document import COLUMN_OF
from portal.domain.staff import incentives, roles
from portal.domain.staff.editing import (
    FORM_FIELDS,
    NOT_COMPLETE,
    RESUME,
    STATUS_LABELS,
    STOP,
    check_form,
    form_of,
    limit_options,
    next_statuses,
)
from portal.domain.taking.kinds import kind_of
from portal.models import Qualification, Test
from portal.models._base import utcnow
from portal.services import row_locks, transitions
from portal.services.admin import audit, versions
from portal.services.admin.guard import Caller, require_staff
from portal.services.admin.ids import one_id
from portal.services.definition_import import apply_definition, document_for, find_test_by_name
from portal.services.errors import ServiceError

NO_TEST = "This test does not exist."
NAME_TAKEN = "Another test is already called this: names identify tests when importing."
STATUS_MOVED = "This test is no longer {status}: someone changed it meanwhile. The page now shows it as it is."
NOT_A_STOP_OR_RESUME = "Only a running test can be stopped, and only a stopped one resumed."
# The test columns the settings form writes (the status is written apart, expecting the status it was read in).
SETTINGS_COLUMNS = tuple(
    dict.fromkeys(COLUMN_OF[f] for f in FORM_FIELDS.values() if f not in ("qualifications", "status"))
)


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
    limit_options: list[tuple[str, str]] = field(default_factory=list)
    content: list[str] = field(default_factory=list)  # the definition's problems outside the form
    scheduled: str = ""  # '2026-05-01 14:00 UTC' while scheduled
    rates: list[tuple[str, str, str]] = field(default_factory=list)  # what invitees earn: (level, day 1, day 2)
    rates_row: str = ""  # the incentive table's row for the product type
    payout_note: str = ""
    scheduled_at: datetime | None = None


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
    test = row_locks.locked(session, Test, tid) if lock else session.get(Test, tid)
    if test is None:
        raise ServiceError(NO_TEST)
    return test


def when_text(value: datetime | None) -> str:
    """'2026-05-01 14:00 UTC' (the schedule is entered and shown in UTC)."""
    if value is None:
        return ""
    aware = value if value.tzinfo else value.replace(tzinfo=UTC)
    return aware.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def _view(session: Session, test: Test) -> EditView:
    document = document_for(session, test)
    form = form_of(document, test.scheduled_at)
    content = [str(e) for e in validate_test_definition(document) if not _in_form(e.path)]
    return EditView(
        test_id=test.id,
        kind=kind_of(test.product_type).name,
        product_type=invite_rules.product_type_label(test.product_type),
        status=test.status,
        form=form,
        document=document,
        statuses=list(next_statuses(test.status)),
        qualifications=list(session.execute(select(Qualification.name).order_by(Qualification.name)).scalars()),
        countries=geography.countries(),
        updated=test.updated_at.isoformat(),
        limit_options=limit_options(form["limit"]),
        content=content,
        scheduled=when_text(test.scheduled_at) if test.status == "scheduled" else "",
        rates=incentives.invitee_rates(test.product_type),
        rates_row=incentives.ROW_LABELS[incentives.row_of(test.product_type)],
        payout_note=incentives.payout_note(test.product_type, test.payout_cents),
        scheduled_at=test.scheduled_at,
    )


def _in_form(path: str) -> bool:
    from portal.domain.staff.editing import form_field_of

    return bool(form_field_of(path))


def edit_view(session: Session, *, actor_id: Caller, test_id: Any) -> EditView:
    require_staff(session, actor_id, roles.VIEW)
    return _view(session, _test(session, test_id))


def _write_settings(session: Session, test: Test, definition: TestDefinition) -> None:
    """Write the settings columns and qualifications of `definition` (only what changed). The form's columns
    that a version holds (welcome modal, frame of mind, screener) were checked by versions.check_change first:
    a test in use gets them in a new version (portal/models/test.py)."""
    apply_definition(session, test, definition)


def _move_status(session: Session, test: Test, old: str, new: str, now: datetime) -> None:
    """The status change, written expecting the status the test was read in (exactly once: a second tab or the
    launch job that changed it first makes this one refuse)."""
    values: dict[str, Any] = {"status": new, "updated_at": now}
    if new == "running":  # a test that starts running for the first time is launched now (day 1 of the table)
        values["launched_at"] = func.coalesce(Test.launched_at, now)
    if not transitions.move(session, Test, Test.id == test.id, Test.status == old, values=values):
        raise ServiceError(STATUS_MOVED.format(status=STATUS_LABELS.get(old, old).lower()))


def save_edit(session: Session, *, actor_id: Caller, test_id: Any, form: Any, confirm: Any = None) -> SaveResult:
    """Check the form against the test as it is now (row locked) and save it when nothing is wrong. A draft
    whose content is not complete yet (a new test) is saved with it; no other status is. An edit of what a
    test in use asks (its screener, welcome modal, frame of mind) is saved only once its new-version warning
    is confirmed (`confirm`: the version number the warning named)."""
    staff = require_staff(session, actor_id, roles.MANAGE_TESTS)
    test = _test(session, test_id, lock=True)
    if not isinstance(form, dict):
        raise ServiceError("Nothing to save.")
    now = utcnow()
    before = document_for(session, test)
    scheduled_before = test.scheduled_at
    check = check_form(before, form, test.status, now=now, scheduled_before=scheduled_before)
    problems = dict(check.problems)
    if "name" not in problems:
        other = find_test_by_name(session, str(check.document.get("name", "")).strip())
        if other is not None and other.id != test.id:
            problems["name"] = NAME_TAKEN
    if problems:
        return SaveResult(saved=False, problems=problems, listing=check.listing or [f"name: {NAME_TAKEN}"])
    definition, _content = read_test_definition(check.document)
    if definition is None:  # the product type is not the form's: a row that no file could have made
        raise ServiceError("This test's product type is unknown: import its definition again.")
    old_status, new_status = test.status, str(check.document["status"])
    settings = TestDefinition(
        kind=definition.kind,
        columns={c: definition.columns[c] for c in SETTINGS_COLUMNS},
        qualifications=definition.qualifications,
    )
    warning = versions.check_change(session, test, settings.columns, confirm)
    if warning is not None:
        if warning.problem:
            return SaveResult(saved=False, problems={"": warning.problem}, listing=[warning.problem])
        return SaveResult(saved=False, warning=warning.message, version=warning.version)
    versions.mark(session, staff.account_id, "edit")
    if new_status != old_status:
        _move_status(session, test, old_status, new_status, now)
    try:
        _write_settings(session, test, settings)
    except TestDefinitionError as e:
        session.rollback()
        return SaveResult(
            saved=False, problems={"qualifications": e.errors[0].message}, listing=[str(x) for x in e.errors]
        )
    if new_status == "scheduled":
        test.scheduled_at = check.scheduled_at
    elif new_status in ("draft", "ready-to-launch"):
        test.scheduled_at = None
    if test.draft_document is not None:  # the builder's working copy keeps the settings saved here
        test.draft_document = {**test.draft_document, **{k: v for k, v in check.document.items() if k in _SETTINGS}}
    session.add(test)
    session.flush()
    after = document_for(session, test)
    changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
    old_values, new_values = {k: before.get(k) for k in changed}, {k: after.get(k) for k in changed}
    if test.scheduled_at != scheduled_before:
        changed.append("scheduledAt")
        old_values["scheduledAt"], new_values["scheduledAt"] = scheduled_before, test.scheduled_at
    if changed:
        audit.record(
            session,
            staff,
            "test.status" if changed in (["status"], ["status", "scheduledAt"]) else "test.edit",
            "test",
            test.id,
            before=old_values,
            after=new_values,
        )
    return SaveResult(saved=True, changed=changed, view=_view(session, test))


# The definition fields the settings form edits (kept in the builder's working copy too).
_SETTINGS = frozenset(FORM_FIELDS.values())


def stop_or_resume(session: Session, *, actor_id: Caller, test_id: Any, expected: Any, to: Any) -> EditView:
    """Stop a running test or resume a stopped one, expecting the status the page showed (a double click or a
    second tab changes it once). A test whose definition has problems is not resumed. One audit row."""
    staff = require_staff(session, actor_id, roles.MANAGE_TESTS)
    if (expected, to) not in (STOP, RESUME):
        raise ServiceError(NOT_A_STOP_OR_RESUME)
    test = _test(session, test_id)
    if to == "running":
        content = validate_test_definition(document_for(session, test))
        if content:
            count = "1 problem" if len(content) == 1 else f"{len(content)} problems"
            raise ServiceError(NOT_COMPLETE.format(count=count, status="running"))
    _move_status(session, test, str(expected), str(to), utcnow())
    audit.record(session, staff, "test.status", "test", test.id, before={"status": expected}, after={"status": to})
    session.refresh(test)
    return _view(session, test)
