"""Staff: a test's JSON definition uploaded from the browser (checked as the CLI checks it; created or
updated by name) and downloaded (it imports back unchanged).

An upload is read as the API reads a JSON body (portal/domain/json_text.py: depth and characters; the
size limit is domain/upload_limits.py's, enforced again at /_upload before the body is read), and
answers with at most the first MAX_PROBLEMS_SHOWN problems and how many there are in all."""

from __future__ import annotations

import codecs
import json
from dataclasses import dataclass, field
from typing import Any

from sqlmodel import Session

from portal.domain import json_text, upload_limits
from portal.domain.definition import TestDefinitionError, first_problems, parse_test_definition
from portal.domain.staff import roles
from portal.domain.staff.editing import status_problem
from portal.models import Test
from portal.services import row_locks
from portal.services.admin import audit, versions
from portal.services.admin.editing import mark_launch
from portal.services.admin.guard import Caller, require_staff
from portal.services.admin.ids import one_id
from portal.services.definition_import import apply_definition, document_for, find_test_by_name
from portal.services.errors import ServiceError

MAX_FILE_BYTES = upload_limits.TEST_FILE_BYTES
TOO_BIG = f"The file is bigger than {upload_limits.in_mb(MAX_FILE_BYTES)} MB: a test definition is a small JSON file."
MAX_PROBLEMS_SHOWN = 100
NOT_UTF8 = "The file is not UTF-8 text."
NOT_TAKEN = (
    f"Choose a .json file of at most {upload_limits.in_mb(MAX_FILE_BYTES)} MB: a test definition is a small JSON file."
)
NOT_JSON = "The file is not valid JSON: {detail}."
NO_TEST = "This test does not exist."


@dataclass(frozen=True)
class ImportResult:
    outcome: str  # created | updated | unchanged | refused | confirm (a new version of a test in use)
    problems: list[str] = field(
        default_factory=list
    )  # 'path: message': the first MAX_PROBLEMS_SHOWN, then '… and N more problems'
    test_id: int | None = None
    name: str = ""
    problem_count: int = 0  # all of them
    warning: str = ""  # outcome 'confirm': what saving it as a new version means
    version: int = 0  # outcome 'confirm': the version in use (imported again with confirm=version)

    @property
    def message(self) -> str:
        n = self.problem_count
        return {
            "created": f"Created the test “{self.name}”.",
            "updated": f"Updated the test “{self.name}”.",
            "unchanged": f"No change: “{self.name}” is already exactly this definition.",
            "confirm": f"“{self.name}” is in use. {self.warning}",
        }.get(self.outcome, f"Nothing was imported: {n:,} problem{'s' if n != 1 else ''} to fix.")


def more_problems(n: int) -> str:
    return f"… and {n:,} more problem{'s' if n != 1 else ''}"


def _refused(problems: list[str], total: int | None = None) -> ImportResult:
    total = len(problems) if total is None else total
    shown = problems[:MAX_PROBLEMS_SHOWN]
    if total > len(shown):
        shown = [*shown, more_problems(total - len(shown))]
    return ImportResult(outcome="refused", problems=shown, problem_count=total)


def read_document(data: Any) -> tuple[Any, str | None]:
    """The parsed JSON of an uploaded file, or the message saying why it cannot be read."""
    if not isinstance(data, (bytes, bytearray)):
        return None, NOT_UTF8
    if len(data) > MAX_FILE_BYTES:
        return None, TOO_BIG
    raw = bytes(data).removeprefix(codecs.BOM_UTF8)
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return None, NOT_UTF8
    try:
        return json_text.parse(raw, "file"), None
    except json_text.JsonRefused as refused:
        return None, refused.message
    except ValueError as e:
        return None, NOT_JSON.format(detail=str(e))


def import_file(session: Session, *, actor_id: Caller, data: Any, confirm: Any = None) -> ImportResult:
    """Validate the whole file, then create the test or update the one with its name. Nothing is
    written when there is any problem (they are all listed with their paths). A file that changes what a
    test in use asks answers 'confirm' with the new-version warning: imported again with `confirm` (the
    version number the warning named), it makes the next version."""
    staff = require_staff(session, actor_id, roles.MANAGE_TESTS)
    document, unreadable = read_document(data)
    if unreadable:
        return _refused([unreadable])
    errors, total = first_problems(document, MAX_PROBLEMS_SHOWN)
    if total:
        return _refused([str(e) for e in errors], total)
    definition = parse_test_definition(document)
    existing = find_test_by_name(session, definition.columns["name"])
    if existing is not None:
        existing = row_locks.locked(session, Test, existing.id) or existing
        moved = status_problem(existing.status, definition.columns["status"])
        if moved:
            return _refused([f"status: {moved}"])
        warning = versions.check_change(session, existing, definition.columns, confirm)
        if warning is not None:
            if warning.problem:
                return _refused([f"productType: {warning.problem}"])
            return ImportResult(
                outcome="confirm",
                test_id=existing.id,
                name=existing.name,
                warning=warning.message,
                version=warning.version,
            )
    before = document_for(session, existing) if existing is not None else None
    old_status = existing.status if existing is not None else None
    versions.mark(session, staff.account_id, "import")
    try:
        test = apply_definition(session, existing, definition)
    except TestDefinitionError as e:
        session.rollback()
        return _refused([str(x) for x in e.errors])
    mark_launch(test, old_status)
    after = document_for(session, test)
    if before == after:
        return ImportResult(outcome="unchanged", test_id=test.id, name=test.name)
    outcome = "created" if existing is None else "updated"
    changed = sorted(k for k in set(after) | set(before or {}) if (before or {}).get(k) != after.get(k))
    audit.record(
        session,
        staff,
        "test.import",
        "test",
        test.id,
        before={"fields": changed} if before else None,
        after={"name": test.name, "outcome": outcome},
    )
    return ImportResult(outcome=outcome, test_id=test.id, name=test.name)


def export_test(session: Session, *, actor_id: Caller, test_id: Any) -> tuple[str, str]:
    """(file name, JSON text) of a test's definition."""
    staff = require_staff(session, actor_id, roles.MANAGE_TESTS)
    test = session.get(Test, one_id(test_id, NO_TEST))
    if test is None:
        raise ServiceError(NO_TEST)
    text = json.dumps(document_for(session, test), indent=2, ensure_ascii=False) + "\n"
    audit.record(session, staff, "test.export", "test", test.id, after={"name": test.name})
    return f"test-{test.id}.json", text
