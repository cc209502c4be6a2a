"""Staff: the test builder at /admin/tests/{id}/build: the definition edited in forms, no JSON.

The builder's working copy is kept on the test row (`Test.draft_document`) after every change, so nothing
staff type is lost on a reload; it holds only what the builder edits (portal/domain/authoring/document.py
BUILDER_FIELDS), and is shown merged into the test as saved, so a change made meanwhile on the details
page or in the area editor is never undone by the builder. 'Save changes' sends the merged document
through the one door that saves a definition (portal/services/admin/versions.save_document: the
import's checks, the new-version warning, the audit row) and drops the draft.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select
from sqlmodel import Session

from portal.domain import json_text, upload_limits
from portal.domain.authoring.document import builder_part, merged
from portal.domain.staff import roles
from portal.domain.taking import kinds
from portal.domain.text import MAX_DEPTH
from portal.models import Test, TestVersion
from portal.services import row_locks
from portal.services.admin.guard import Caller, require_staff
from portal.services.admin.ids import one_id
from portal.services.admin.versions import SaveOutcome, save_document
from portal.services.definition_import import document_for
from portal.services.errors import ServiceError
from portal.services.taking import definitions

NO_TEST = "This test does not exist."
MAX_DRAFT_BYTES = upload_limits.TEST_FILE_BYTES
DRAFT_TOO_BIG = f"The test is too big to keep: at most {upload_limits.in_mb(MAX_DRAFT_BYTES)} MB of text."
DRAFT_UNREADABLE = "The draft could not be kept: " + json_text.bad_characters("draft")
NOT_A_DOCUMENT = "Nothing to keep: the draft is not a test definition."


@dataclass(frozen=True)
class BuilderView:
    test_id: int
    name: str
    kind: str
    product_type: str
    status: str
    document: dict[str, Any]  # what the builder edits: the draft merged into the saved definition
    saved: dict[str, Any]  # the definition as saved
    has_draft: bool
    version: int


def _test(session: Session, test_id: Any, *, lock: bool = False) -> Test:
    number = one_id(test_id, NO_TEST)
    test = row_locks.locked(session, Test, number) if lock else session.get(Test, number)
    if test is None:
        raise ServiceError(NO_TEST)
    return test


def _newest_version(session: Session, test_id: int) -> int:
    found = session.execute(select(func.max(TestVersion.number)).where(TestVersion.test_id == test_id)).scalar()
    return int(found or 0)


def _view(session: Session, test: Test) -> BuilderView:
    saved = document_for(session, test)
    draft = test.draft_document if isinstance(test.draft_document, dict) else None
    return BuilderView(
        test_id=test.id,
        name=test.name,
        kind=kinds.kind_of(test.product_type).name,
        product_type=test.product_type,
        status=test.status,
        document=merged(saved, draft) if draft is not None else saved,
        saved=saved,
        has_draft=draft is not None,
        version=_newest_version(session, test.id),
    )


def open_builder(session: Session, *, actor_id: Caller, test_id: Any) -> BuilderView:
    """The test as the builder shows it: its draft when one is kept, else its saved definition."""
    require_staff(session, actor_id, roles.VIEW)
    return _view(session, _test(session, test_id))


def checked_draft(document: Any) -> dict[str, Any]:
    """The builder's part of a working document, within the JSON limits of the portal (size, depth,
    characters); ServiceError with the message otherwise."""
    if not isinstance(document, dict):
        raise ServiceError(NOT_A_DOCUMENT)
    part = builder_part(document)
    try:
        raw = json.dumps(part, ensure_ascii=False, allow_nan=False).encode("utf-8")
    except (TypeError, ValueError, RecursionError) as error:
        raise ServiceError(NOT_A_DOCUMENT) from error
    if len(raw) > MAX_DRAFT_BYTES:
        raise ServiceError(DRAFT_TOO_BIG)
    if json_text.nesting_depth(raw) > MAX_DEPTH:
        raise ServiceError(json_text.too_deep("draft"))
    if not json_text.is_clean(part):
        raise ServiceError(DRAFT_UNREADABLE)
    return part


def save_draft(session: Session, *, actor_id: Caller, test_id: Any, document: Any) -> None:
    """Keep the builder's working copy (not the test's definition: participants see nothing of it).
    Kept drafts leave no audit row; saving the definition does."""
    require_staff(session, actor_id, roles.MANAGE_TESTS)
    part = checked_draft(document)
    test = _test(session, test_id, lock=True)
    test.draft_document = part
    session.add(test)


def discard_draft(session: Session, *, actor_id: Caller, test_id: Any) -> BuilderView:
    """Back to the saved definition."""
    require_staff(session, actor_id, roles.MANAGE_TESTS)
    test = _test(session, test_id, lock=True)
    test.draft_document = None
    session.add(test)
    session.flush()
    return _view(session, test)


def save(session: Session, *, actor_id: Caller, test_id: Any, document: Any, confirm: Any = None) -> SaveOutcome:
    """'Save changes': the builder's part of `document` put into the test as saved now, through the one save
    door; once saved the draft is dropped. A warning (a new version) comes back unsaved: calling again
    with `confirm` = the version number it names saves it as that new version."""
    require_staff(session, actor_id, roles.MANAGE_TESTS)
    part = checked_draft(document)
    test = _test(session, test_id, lock=True)
    number = confirm if isinstance(confirm, int) and not isinstance(confirm, bool) else None
    whole = merged(document_for(session, test), part)
    outcome = save_document(
        session, actor_id=actor_id, test_id=test.id, document=copy.deepcopy(whole), confirm=number, source="builder"
    )
    if outcome.saved:
        test = _test(session, test.id, lock=True)
        test.draft_document = None
        session.add(test)
        session.commit()
        # This worker's copy of the definition is refreshed now (other workers' within CACHE_SECONDS).
        definitions.load_definition(session=session, test_id=test.id)
    return outcome
