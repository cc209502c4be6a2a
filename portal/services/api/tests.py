"""Tests for the REST API (issue 39): a keyset list, one test with its definition document (as the export writes it),
its versions; and every change through the staff services the pages use: create by the import (`import_file`),
update by the builder's whole-document save (`save_document`, its version warning confirmed by `confirm`), launch and
schedule by the edit page's save (`save_edit`), stop and resume (`stop_or_resume`), duplicate (`duplicate_test`).

An unknown test is NotFound (404); a test whose state forbids the change is Conflict (409); a definition with problems
is refused with each problem under its path (422). A test's status changes only through launch, schedule, stop and
resume here: a definition sent to create or update a test does not move it (the status rules live in
portal/domain/staff/editing.py)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import func, select
from sqlmodel import Session

from portal.api.errors import Conflict, NotFound
from portal.domain import json_text
from portal.domain.definition import first_problems, parse_test_definition, validate_test_definition
from portal.domain.definition_checks import DefinitionError
from portal.domain.ids import whole_number
from portal.domain.staff import roles
from portal.domain.staff.editing import RESUME, SCHEDULE_PAST, STATUS_LABELS, STOP
from portal.models import Account, Test, TestVersion
from portal.services import row_locks
from portal.services.admin import definition_files, editing, versions
from portal.services.admin import tests as staff_tests
from portal.services.admin.guard import Caller, require_staff
from portal.services.api import keyset
from portal.services.definition_import import document_for, find_test_by_name
from portal.services.errors import ServiceError

NO_TEST = editing.NO_TEST
NAME_TAKEN = editing.NAME_TAKEN
MAX_PROBLEMS = definition_files.MAX_PROBLEMS_SHOWN
NOT_AN_OBJECT = "Send the test's definition as a JSON object (docs/test-format.md)."
STATUS_BY_ROUTE = (
    "A definition does not change a test's status here: launch, schedule, stop or resume it with "
    "POST /tests/{id}/launch, /schedule, /stop or /resume."
)
NEW_STATUS = (
    "A new test is a draft, ready to launch or running; schedule it once it exists (POST /tests/{id}/schedule)."
)
CONFIRM = " Send the update again with confirm={version} to save it as version {next}."
ALREADY = "This test is already {status}."
CANNOT_STOP = "Only a running test can be stopped: this one is {status}."
CANNOT_RESUME = "Only a stopped test can be resumed: this one is {status}."
CREATED_STATUSES = ("draft", "ready-to-launch", "running")


class DefinitionRefused(ServiceError):
    """A definition with problems: each under its path (422), listed apart (portal/api/errors.py `problems`)."""

    def __init__(self, problems: list[tuple[str | None, str]]) -> None:
        first = problems[0] if problems else (None, "The definition cannot be used.")
        super().__init__(first[1], field=first[0] or "_global")
        self.problems = problems


class StateRefused(Conflict):
    """The test's state forbids the change (409): the reason, then the definition's problems under their paths."""

    def __init__(self, problems: list[tuple[str | None, str]]) -> None:
        super().__init__(problems[0][1])
        self.problems = problems


# --- reading ---------------------------------------------------------------------------------------------


def _aware(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _label(status: str) -> str:
    return STATUS_LABELS.get(status, status).lower()


def existing(session: Session, test_id: Any, *, lock: bool = False) -> Test:
    """The test with this id (its row locked to the end of the transaction with `lock`), else NotFound."""
    number = whole_number(test_id)
    found = None
    if number:
        found = row_locks.locked(session, Test, number) if lock else session.get(Test, number)
    if found is None:
        raise NotFound(NO_TEST)
    return found


def _newest_number(session: Session, test_id: int) -> int | None:
    number = session.execute(select(func.max(TestVersion.number)).where(TestVersion.test_id == test_id)).scalar_one()
    return int(number) if number is not None else None


def _summary(test: Test, version: int | None) -> dict[str, Any]:
    return {
        "id": test.id,
        "name": test.name,
        "product_type": test.product_type,
        "status": test.status,
        "version": version,
        "created_at": _aware(test.created_at),
        "updated_at": _aware(test.updated_at),
        "launched_at": _aware(test.launched_at),
        "scheduled_at": _aware(test.scheduled_at) if test.status == "scheduled" else None,
    }


def summary(session: Session, test: Test) -> dict[str, Any]:
    session.refresh(test)
    return _summary(test, _newest_number(session, test.id))


def detail(session: Session, test: Test) -> dict[str, Any]:
    return {**summary(session, test), "definition": document_for(session, test)}


def list_tests(
    session: Session,
    *,
    actor_id: Caller,
    after: int | None,
    limit: int,
    status: str | None = None,
    product_type: str | None = None,
) -> keyset.Listed[dict[str, Any]]:
    """Tests newest first (by id), optionally of one status or product type, with their newest version number."""
    require_staff(session, actor_id, roles.VIEW)
    newest = select(func.max(TestVersion.number)).where(TestVersion.test_id == Test.id).scalar_subquery()
    statement = select(Test, newest)
    if status:
        statement = statement.where(Test.status == status)
    if product_type:
        statement = statement.where(Test.product_type == product_type)
    rows = keyset.page(session, statement, Test.id, after=after, limit=limit)
    found = [_summary(test, number) for test, number in rows]
    return keyset.listed(found, [item["id"] for item in found], limit)


def read_test(session: Session, *, actor_id: Caller, test_id: Any) -> dict[str, Any]:
    """One test and its definition document (what the export writes and the import reads back unchanged)."""
    require_staff(session, actor_id, roles.VIEW)
    return detail(session, existing(session, test_id))


def list_versions(session: Session, *, actor_id: Caller, test_id: Any) -> list[dict[str, Any]]:
    """Every version of the test, newest first: when and by whom it was made, how many take it now and submitted
    on it, and whether it is sealed (someone started on it: an edit makes the next version)."""
    require_staff(session, actor_id, roles.VIEW)
    test = existing(session, test_id)
    found = session.execute(
        select(TestVersion, Account.email)
        .outerjoin(Account, Account.id == TestVersion.created_by_id)
        .where(TestVersion.test_id == test.id)
        .order_by(TestVersion.number.desc())
    ).all()
    out = []
    for version, email in found:
        used = versions.usage(session, version.id)
        out.append(
            {
                "number": version.number,
                "created_at": _aware(version.created_at),
                "created_by": email,
                "source": version.source,
                "source_label": versions.SOURCE_LABELS.get(version.source, version.source),
                "in_progress": used.in_progress,
                "submitted": used.done,
                "sealed": bool(version.sealed),
            }
        )
    return out


def read_version(session: Session, *, actor_id: Caller, test_id: Any, number: Any) -> dict[str, Any]:
    """What version `number` asks: its versioned fields in the definition's spelling."""
    require_staff(session, actor_id, roles.VIEW)
    test = existing(session, test_id)
    try:
        document = versions.version_document(session, actor_id=actor_id, test_id=test.id, number=number)
    except ServiceError as e:
        raise NotFound(e.message) from None
    return {"number": number, "definition": document}


# --- creating and updating by definition -------------------------------------------------------------------


def _problems(errors: Iterable[DefinitionError], total: int) -> DefinitionRefused:
    listed: list[tuple[str | None, str]] = [(e.path or None, e.message) for e in errors]
    if total > len(listed):
        listed.append((None, definition_files.more_problems(total - len(listed))))
    return DefinitionRefused(listed)


def _listed(problems: Iterable[str]) -> DefinitionRefused:
    """The import's refusals ('path: message', or a message of the whole file) as problems."""
    out: list[tuple[str | None, str]] = []
    for text in problems:
        path, sep, message = text.partition(": ")
        simple = sep and path and " " not in path
        out.append((path, message) if simple else (None, text))
    return DefinitionRefused(out)


def _checked(document: Any) -> None:
    """The import's checks: read as an uploaded file is (its size, depth and characters), then every problem."""
    if not isinstance(document, dict):
        raise ServiceError(NOT_AN_OBJECT)
    try:
        raw = json.dumps(document, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate ("\ud800") in a string
        raise DefinitionRefused([(None, json_text.bad_characters("definition"))]) from None
    if len(raw) > definition_files.MAX_FILE_BYTES:
        raise DefinitionRefused([(None, definition_files.TOO_BIG)])
    try:
        json_text.parse(raw, "definition")
    except json_text.JsonRefused as refused:
        raise DefinitionRefused([(None, refused.message)]) from None
    errors, total = first_problems(document, MAX_PROBLEMS)
    if total:
        raise _problems(errors, total)


def create_test(session: Session, *, actor_id: Caller, document: Any) -> dict[str, Any]:
    """A new test from a definition, checked and written by the import (`import_file`); a name in use is a
    Conflict (the import would update that test: PUT /tests/{id} does)."""
    require_staff(session, actor_id, roles.MANAGE_TESTS)
    _checked(document)
    if document.get("status", "draft") not in CREATED_STATUSES:
        raise ServiceError(NEW_STATUS, field="status")
    name = parse_test_definition(document).columns["name"]
    if find_test_by_name(session, name) is not None:
        raise Conflict(NAME_TAKEN, field="name")
    data = json.dumps(document, ensure_ascii=False).encode("utf-8")
    result = definition_files.import_file(session, actor_id=actor_id, data=data)
    if result.outcome == "refused":
        raise _listed(result.problems)
    if result.outcome != "created" or result.test_id is None:  # a test of this name was made meanwhile
        raise Conflict(NAME_TAKEN, field="name")
    return detail(session, existing(session, result.test_id))


def update_test(
    session: Session, *, actor_id: Caller, test_id: Any, document: Any, confirm: int | None = None
) -> dict[str, Any]:
    """Save a whole definition as the test's (the builder's save: the import's checks, a name another test has is
    refused). A change to a version in use is a Conflict carrying the warning until `confirm` names that version."""
    require_staff(session, actor_id, roles.MANAGE_TESTS)
    test = existing(session, test_id, lock=True)
    if not isinstance(document, dict):
        raise ServiceError(NOT_AN_OBJECT)
    if "status" in document and document["status"] != test.status:
        raise ServiceError(STATUS_BY_ROUTE, field="status")
    document = {**document, "status": test.status}
    _checked(document)
    outcome = versions.save_document(
        session, actor_id=actor_id, test_id=test.id, document=document, confirm=confirm, source="api"
    )
    if outcome.warning:
        message = outcome.warning + CONFIRM.format(version=outcome.version, next=outcome.version + 1)
        raise Conflict(message, field="confirm")
    if not outcome.saved:
        if outcome.problems.get("name") == NAME_TAKEN:
            raise Conflict(NAME_TAKEN, field="name")
        if "productType" in outcome.problems and len(outcome.problems) == 1:
            raise Conflict(outcome.problems["productType"], field="productType")
        raise DefinitionRefused([(path or None, message) for path, message in outcome.problems.items()])
    return {**detail(session, existing(session, test.id)), "new_version": outcome.new_version}


# --- the test's life: launch, schedule, stop, resume, duplicate ------------------------------------------------


def _save_status(
    session: Session, actor_id: Caller, test: Test, status: str, at: datetime | None = None
) -> dict[str, Any]:
    """The edit page's save of the test as it is with another status (and start time): its checks, its audit row."""
    form = dict(editing.edit_view(session, actor_id=actor_id, test_id=test.id).form)
    form["status"] = status
    if at is not None:
        when = at.astimezone(UTC)
        form["scheduled.date"], form["scheduled.time"] = when.strftime("%Y-%m-%d"), when.strftime("%H:%M")
    try:
        result = editing.save_edit(session, actor_id=actor_id, test_id=test.id, form=form)
    except ServiceError as e:
        if e.message.startswith("This test is no longer"):  # moved by someone else meanwhile
            raise Conflict(e.message) from None
        raise
    if not result.saved:
        schedule = [m for f, m in result.problems.items() if f.startswith("scheduled.")]
        if schedule:
            raise ServiceError(schedule[0], field="at")
        messages = list(result.problems.values())
        raise _state(
            session, test, messages[0] if messages else editing.STATUS_MOVED.format(status=_label(test.status))
        )
    return detail(session, existing(session, test.id))


def _state(session: Session, test: Test, message: str) -> StateRefused:
    """A refusal of the test's state; when its definition has problems (a draft's), each is listed under its path."""
    content = validate_test_definition(document_for(session, test))
    return StateRefused([(None, message), *((e.path or None, e.message) for e in content)])


def launch_test(session: Session, *, actor_id: Caller, test_id: Any) -> dict[str, Any]:
    """Start the test now (running: day 1 of the incentive table), as the edit page's status field does."""
    require_staff(session, actor_id, roles.MANAGE_TESTS)
    test = existing(session, test_id, lock=True)
    if test.status == "running":
        raise Conflict(ALREADY.format(status="running"))
    return _save_status(session, actor_id, test, "running")


def schedule_test(session: Session, *, actor_id: Caller, test_id: Any, at: Any) -> dict[str, Any]:
    """Start the test at `at` (UTC, to the minute; in the future): the launch job starts it then."""
    require_staff(session, actor_id, roles.MANAGE_TESTS)
    test = existing(session, test_id, lock=True)
    if not isinstance(at, datetime):
        raise ServiceError("Give the start as a date and time.", field="at")
    when = at if at.tzinfo is not None else at.replace(tzinfo=UTC)
    if when <= datetime.now(UTC):
        raise ServiceError(SCHEDULE_PAST, field="at")
    return _save_status(session, actor_id, test, "scheduled", when)


def _stop_or_resume(session: Session, actor_id: Caller, test_id: Any, move: tuple[str, str], refusal: str) -> Test:
    require_staff(session, actor_id, roles.MANAGE_TESTS)
    test = existing(session, test_id, lock=True)
    expected, to = move
    if test.status == to:
        raise Conflict(ALREADY.format(status=_label(to)))
    if test.status != expected:
        raise Conflict(refusal.format(status=_label(test.status)))
    try:
        editing.stop_or_resume(session, actor_id=actor_id, test_id=test.id, expected=expected, to=to)
    except ServiceError as e:
        raise _state(session, test, e.message) from None
    return test


def stop_test(session: Session, *, actor_id: Caller, test_id: Any) -> dict[str, Any]:
    """Stop a running test (nobody new starts it; it can be resumed)."""
    return detail(session, _stop_or_resume(session, actor_id, test_id, STOP, CANNOT_STOP))


def resume_test(session: Session, *, actor_id: Caller, test_id: Any) -> dict[str, Any]:
    """Resume a stopped test (its definition must have no problems)."""
    return detail(session, _stop_or_resume(session, actor_id, test_id, RESUME, CANNOT_RESUME))


def duplicate_test(session: Session, *, actor_id: Caller, test_id: Any) -> dict[str, Any]:
    """A draft copy of the test's definition and settings named 'Copy of <name>' (never its sessions, reviews or
    invites)."""
    require_staff(session, actor_id, roles.MANAGE_TESTS)
    original = existing(session, test_id)
    made = staff_tests.duplicate_test(session, actor_id=actor_id, test_id=original.id)
    return detail(session, existing(session, made.test_id))
