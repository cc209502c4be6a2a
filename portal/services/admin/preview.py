"""Staff preview of a test (/admin/tests/{id}/preview): the test taken as a participant would, storing nothing.

The preview runs the same screens and the same timed-session core as a participant
(portal/states/taking/timed_session.py), through the preview seam portal/states/taking/core.PreviewCore,
which calls the functions below instead of portal/services/taking/steps. Each one first checks that
the caller is staff with the VIEW permission (guard.require_staff) and that the screen asking is
the test's kind's screen; then it works on a `PreviewRun` the tab keeps in its own state (start,
deadline, extension, draft), never on a review session row. A submission is checked with the very
rules of a real one (review_sessions.check_submission: shape, size, the kind's answer rules; the
end step's personal info with test_taking.checked_details) and then nothing is written: no review,
no reward, no invite change, no review session, no draft, no e-mail, no audit row (previewing
changes nothing).

Who may take the test (invite, verification, status, screener, quota, deadline of the test) is not
asked: staff preview tests in any status, before anyone is invited; and none of it is changed.

With `draft=True` the preview takes the test builder's unsaved working copy (`Test.draft_document`,
merged into the saved test as the builder shows it) instead of the saved definition: the builder's
'Preview draft' (issue 34). A draft the import would refuse has no preview (DRAFT_INVALID).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlmodel import Session

from portal.domain.authoring.document import merged
from portal.domain.definition import TestDefinitionError, parse_test_definition
from portal.domain.ids import whole_number
from portal.domain.staff import roles
from portal.domain.taking import kinds, worker_details
from portal.domain.taking.access import EXTENSION_SECONDS, MAX_EXTENSIONS
from portal.models import Test
from portal.services.admin.guard import Caller, require_staff
from portal.services.definition_import import document_for
from portal.services.errors import ServiceError
from portal.services.taking import review_sessions
from portal.services.taking import steps as test_taking
from portal.services.taking.definitions import TestDefinition, definition_of, load_definition
from portal.services.taking.review_sessions import MSG_FIX_ANSWERS, AnswersError, PendingReview, SubmitResult

NO_TEST = "This test does not exist."
NOT_THIS_KIND = "This screen does not take this kind of test."
DRAFT_INVALID = "The draft has {count} to fix in the builder before it can be previewed."
# The run's id in the screens (the timed session's session id): never a review session's.
RUN_ID = 1


class PreviewNotFound(ServiceError):
    """No such test."""


@dataclass(frozen=True)
class PreviewTarget:
    """What the preview page shows: the test's name and the screen of its kind ('' when its kind
    is not taken in the portal, e.g. a video test)."""

    test_id: int
    name: str
    view: str
    kind: str


@dataclass(frozen=True)
class PreviewRun:
    """A preview's timed session, kept in the tab's state (shaped like a review session row for the
    timed session: id, deadline_at, extensions, status, draft_answers, draft_position)."""

    test_id: int
    started_at: datetime
    deadline_at: datetime
    extensions: int = 0
    status: str = "active"
    draft_answers: dict[str, Any] = field(default_factory=dict)
    draft_position: dict[str, Any] = field(default_factory=dict)
    id: int = RUN_ID
    version_id: int | None = None  # a preview runs on the newest version


def _now(now: datetime | None) -> datetime:
    return now or datetime.now(UTC)


def _test(session: Session, test_id: Any) -> Test:
    number = whole_number(test_id) if isinstance(test_id, int) and not isinstance(test_id, bool) else None
    test = session.get(Test, number) if number is not None else None
    if test is None:
        raise PreviewNotFound(NO_TEST)
    return test


def _draft_row(session: Session, test: Test) -> Test:
    """The test as its builder draft would make it (with no draft kept, as saved): a row kept out of the
    session (never written)."""
    saved = document_for(session, test)
    draft = test.draft_document
    try:
        parsed = parse_test_definition(merged(saved, draft) if isinstance(draft, dict) else saved)
    except TestDefinitionError as error:
        many = len(error.errors)
        raise ServiceError(DRAFT_INVALID.format(count=f"{many} problem{'s' if many != 1 else ''}")) from error
    row = Test(**parsed.columns)
    row.id = test.id
    return row


def draft_definition(session: Session, test: Test) -> TestDefinition:
    """The definition the screens take, of the test's builder draft (the saved test's audience)."""
    return definition_of(session, _draft_row(session, test))


def _definition(session: Session, test_id: Any, view: Any, draft: bool = False) -> TestDefinition:
    """The test's definition, read fresh (staff may have just edited it), when `view` is its kind's screen;
    with `draft`, the builder's working copy."""
    test = _test(session, test_id)
    kind = kinds.kind_of(test.product_type)
    if not kind.taken_in_portal or view != kind.view:
        raise ServiceError(NOT_THIS_KIND)
    if draft is True:
        return draft_definition(session, test)
    found = load_definition(session=session, test_id=test.id)
    if found is None:
        raise PreviewNotFound(NO_TEST)
    return found


def running(run: Any, test_id: Any, now: datetime | None = None) -> PreviewRun | None:
    """The tab's run of this test while it is active and its deadline (plus the grace) has not passed."""
    if not isinstance(run, PreviewRun) or run.test_id != test_id or run.status != "active":
        return None
    return None if review_sessions.session_expired(run, _now(now)) else run


def _running(run: Any, test_id: Any, now: datetime) -> PreviewRun:
    """The active run, or the errors a participant's session gives (the screens handle them alike)."""
    if not isinstance(run, PreviewRun) or run.test_id != test_id or run.status != "active":
        raise review_sessions.NoSessionError(review_sessions.MSG_NO_SESSION)
    if review_sessions.session_expired(run, now):
        raise review_sessions.SessionExpiredError(review_sessions.MSG_EXPIRED)
    return run


def personal_fields(definition: TestDefinition) -> tuple[str, ...]:
    """The personal-info end step as the test's usual taker sees it: a test with public qualifications
    is taken by respondents without an account (who fill it in), any other by signed-in participants."""
    if not definition.public:
        return ()
    return worker_details.enabled_fields(
        panel=definition.panel, qualification_based=definition.qualification_based, has_linkedin=False
    )


def open_preview(session: Session, *, actor_id: Caller, test_id: Any, draft: bool = False) -> PreviewTarget:
    """The preview page of a test, for staff with VIEW (StaffRefused otherwise; PreviewNotFound for no such test;
    with `draft`, ServiceError when the builder's draft has problems)."""
    require_staff(session, actor_id, roles.VIEW)
    test = _test(session, test_id)
    kind = kinds.kind_of(test.product_type)
    if draft is True:
        _draft_row(session, test)
    return PreviewTarget(
        test_id=test.id, name=test.name, view=kind.view if kind.taken_in_portal else "", kind=kind.name
    )


def enter(
    session: Session,
    *,
    actor_id: Caller,
    test_id: Any,
    view: Any,
    run: Any = None,
    now: datetime | None = None,
    draft: bool = False,
) -> test_taking.Entry:
    """The test as the preview opens it: its definition (or its builder draft's) and the tab's run when it
    is still going."""
    staff = require_staff(session, actor_id, roles.VIEW)
    found = _definition(session, test_id, view, draft)
    who = test_taking.Who(None, f"preview:{staff.account_id}")
    return test_taking.Entry(definition=found, who=who, active=running(run, found.test_id, now), reviewed=False)


def start(
    session: Session,
    *,
    actor_id: Caller,
    test_id: Any,
    view: Any,
    run: Any = None,
    now: datetime | None = None,
    draft: bool = False,
) -> PreviewRun:
    """The run going on, else a new one whose deadline is the test's session length away."""
    require_staff(session, actor_id, roles.VIEW)
    found = _definition(session, test_id, view, draft)
    now = _now(now)
    going = running(run, found.test_id, now)
    if going is not None:
        return going
    return PreviewRun(test_id=found.test_id, started_at=now, deadline_at=now + timedelta(seconds=found.session_seconds))


def extend(
    session: Session,
    *,
    actor_id: Caller,
    test_id: Any,
    view: Any,
    run: Any,
    now: datetime | None = None,
    draft: bool = False,
) -> PreviewRun:
    """One extension, as a participant gets it (review_sessions.extend_session's rule)."""
    require_staff(session, actor_id, roles.VIEW)
    found = _definition(session, test_id, view, draft)
    going = _running(run, found.test_id, _now(now))
    if going.extensions >= MAX_EXTENSIONS:
        raise ServiceError(review_sessions.MSG_EXTENDED)
    return replace(
        going, extensions=going.extensions + 1, deadline_at=going.deadline_at + timedelta(seconds=EXTENSION_SECONDS)
    )


def check(session: Session, *, actor_id: Caller, test_id: Any, run: Any, now: datetime | None = None) -> PendingReview:
    """Is the preview still going? (A preview is never 'already reviewed'.)"""
    require_staff(session, actor_id, roles.VIEW)
    return PendingReview(success=running(run, test_id, now) is not None, existing_review=False)


def submit(
    session: Session,
    *,
    actor_id: Caller,
    test_id: Any,
    view: Any,
    run: Any,
    answers: Any,
    worker_data: Any,
    different_payment_email: bool | None = None,
    submission_id: Any,
    signals: Any = None,
    now: datetime | None = None,
    draft: bool = False,
) -> SubmitResult:
    """The submission checked exactly as a participant's would be, then nothing is stored: the result
    names no review or reward (ids 0) and the amount a participant without an invite would get."""
    require_staff(session, actor_id, roles.VIEW)
    found = _definition(session, test_id, view, draft)
    _running(run, found.test_id, _now(now))
    details = test_taking.checked_details(personal_fields(found), worker_data, different_payment_email)
    if draft is True:  # the draft's own questions judge the answers (the kind's rules, as for a submission)
        rules = found.kind_record.validate
        errors = rules(found.content, answers) if rules is not None else {"answers": NOT_THIS_KIND}
        if errors:
            raise AnswersError(MSG_FIX_ANSWERS, errors=errors)
        return SubmitResult(review_id=0, reward_id=0, created=False, amount_cents=found.payout_cents)
    review_sessions.check_submission(
        session=session,
        test_id=found.test_id,
        answers=answers,
        worker_data=details,
        signals=signals,
        submission_id=submission_id,
    )
    return SubmitResult(review_id=0, reward_id=0, created=False, amount_cents=found.payout_cents)
