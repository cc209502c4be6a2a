"""What the test screens ask of the server (every kind), each in one transaction and one thread hop.

Every call resolves the participant again from the session token (a revoked session is noticed
on the next event) and then works on that account's own review session (review_sessions), so a
browser can never name another participant's session. Each step is asked for the screen of the
screen that asks (`view`): the access decision refuses a step whose screen is not the test's
kind's (a survey's handlers cannot start a highlight test).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol, TypedDict

from sqlmodel import Session

from portal.domain.taking import access, worker_details
from portal.models import ReviewSession
from portal.services import partners
from portal.services.errors import ServiceError
from portal.services.sessions import resolve_user
from portal.services.taking import access as take_access
from portal.services.taking import review_sessions
from portal.services.taking.definitions import TestDefinition, cached_definition, load_definition
from portal.services.taking.loading import TestLoad
from portal.services.taking.review_sessions import PendingReview, SubmitResult

MSG_SIGNED_OUT = "Your session has ended. Please sign in again to continue the test."
MSG_DETAILS = "Please check your personal info."


class SignedOutError(ServiceError):
    pass


@dataclass(frozen=True)
class Who:
    """The participant (account) or, on a test with public qualifications, a public respondent key."""

    account_id: int | None
    respondent: str | None = None

    @property
    def public(self) -> bool:
        return self.account_id is None


class TimedRun(Protocol):
    """A session in progress as the page reads it: a review session row, or a staff preview's run shaped like
    one (services/admin/preview.py, PreviewRun)."""

    @property
    def id(self) -> int: ...
    @property
    def test_id(self) -> int: ...
    @property
    def started_at(self) -> datetime: ...
    @property
    def deadline_at(self) -> datetime: ...
    @property
    def extensions(self) -> int: ...
    @property
    def status(self) -> str: ...
    @property
    def draft_answers(self) -> dict[str, Any]: ...
    @property
    def draft_position(self) -> dict[str, Any]: ...
    @property
    def version_id(self) -> int | None: ...


@dataclass(frozen=True)
class Entry:
    """The test as the participant finds it on opening the page."""

    definition: TestDefinition
    who: Who
    active: TimedRun | None
    reviewed: bool


# `user` not given: resolved from the token here.
_RESOLVE: Any = object()


def _who(session: Session, token: str | None, test_id: int, respondent: str | None, user: Any = _RESOLVE) -> Who:
    """The signed-in participant; else the public respondent, only on a test with public qualifications or when a
    partner's verified link admitted them (review_sessions refuses a malformed respondent key). `user`: the token's
    user already resolved in this same transaction (services.rating_page), so it is not looked up twice."""
    if user is _RESOLVE:
        user = resolve_user(session=session, token=token)
    if user is not None:
        return Who(user.account_id)
    if respondent is not None and (
        definition(session=session, test_id=test_id).public
        or partners.admitted(session, test_id=test_id, respondent=respondent)
    ):
        return Who(None, respondent)
    raise SignedOutError(MSG_SIGNED_OUT)


class OwnSession(TypedDict):
    """The keyword arguments naming the caller's own session in review_sessions."""

    session: Session
    test_id: int
    account_id: int | None
    respondent: str | None


class OwnSessionAt(OwnSession):
    now: datetime | None


def _as(session: Session, token: str | None, test_id: int, respondent: str | None) -> OwnSession:
    """The keyword arguments naming the caller's own session in review_sessions."""
    who = _who(session, token, test_id, respondent)
    return {"session": session, "test_id": test_id, "account_id": who.account_id, "respondent": who.respondent}


def definition(session: Session, *, test_id: int, version_id: int | None = None) -> TestDefinition:
    """The test on the version a session was started on (`version_id`), else on its newest version."""
    found = cached_definition(test_id, version_id) or load_definition(
        session=session, test_id=test_id, version_id=version_id
    )
    if found is None:
        raise ServiceError(review_sessions.MSG_NO_TEST)
    return found


def enter(
    session: Session,
    *,
    token: str | None,
    test_id: int,
    view: str,
    respondent: str | None = None,
    now: datetime | None = None,
    user: Any = _RESOLVE,
    decided: TestLoad | None = None,
) -> Entry:
    """The test, when this caller may take it now (take_access: AccessDenied otherwise); a caller who
    already reviewed it gets `reviewed` and no questions to answer. `user`: the token's user when the
    caller resolved it in this same session (else it is resolved here); `decided`: take_access.decide's
    answer for this test and this signed-in user, made in this same session (else decided here)."""
    who = _who(session, token, test_id, respondent, user)
    mine: OwnSessionAt = {
        "session": session,
        "test_id": test_id,
        "account_id": who.account_id,
        "respondent": who.respondent,
        "now": now,
    }
    if decided is not None and (who.account_id is None or decided.test_id != test_id):
        decided = None  # only the signed-in caller's own decision on this test stands in for it
    try:
        take_access.require(**mine, view=view, decided=decided)
    except take_access.AccessDenied as denied:
        if denied.state != access.REVIEWED:
            raise
        return Entry(definition=definition(session=session, test_id=test_id), who=who, active=None, reviewed=True)
    if decided is not None:  # the decision read the session in progress in this transaction: its row
        active = session.get(ReviewSession, decided.session_id) if decided.session_id is not None else None
    else:
        active = review_sessions.active_session(**mine)
    # A session in progress goes on on the version it started on.
    found = definition(session=session, test_id=test_id, version_id=active.version_id if active else None)
    return Entry(definition=found, who=who, active=active, reviewed=False)


def start(
    session: Session,
    *,
    token: str | None,
    test_id: int,
    view: str,
    respondent: str | None = None,
    now: datetime | None = None,
) -> ReviewSession:
    return review_sessions.start_session(**_as(session, token, test_id, respondent), view=view, now=now)


def draft(
    session: Session, *, token: str | None, test_id: int, respondent: str | None = None, now: datetime | None = None
) -> ReviewSession | None:
    return review_sessions.active_session(**_as(session, token, test_id, respondent), now=now)


def extend(
    session: Session,
    *,
    token: str | None,
    test_id: int,
    view: str,
    respondent: str | None = None,
    now: datetime | None = None,
) -> ReviewSession:
    return review_sessions.extend_session(**_as(session, token, test_id, respondent), view=view, now=now)


def check(
    session: Session, *, token: str | None, test_id: int, respondent: str | None = None, now: datetime | None = None
) -> PendingReview:
    return review_sessions.pending_review(**_as(session, token, test_id, respondent), now=now)


def clear(
    session: Session, *, token: str | None, test_id: int, respondent: str | None = None, now: datetime | None = None
) -> bool:
    return review_sessions.clear_session(**_as(session, token, test_id, respondent), now=now)


def personal_fields(found: TestDefinition, who: Who) -> tuple[str, ...]:
    """The personal-info fields this respondent fills in at the end (none for a signed-in participant)."""
    if not who.public:
        return ()
    return worker_details.enabled_fields(
        panel=found.panel, qualification_based=found.qualification_based, has_linkedin=False
    )


def checked_details(fields: tuple[str, ...], worker_data: Any, different_payment_email: bool | None) -> dict[str, str]:
    """The personal info of the end step checked again (ServiceError with 'workerData.<field>' errors),
    as it is submitted; {} when the respondent has no such step."""
    if not fields:
        return {}
    errors = worker_details.validate(worker_data, fields, different_payment_email=different_payment_email)
    if errors:
        raise ServiceError(MSG_DETAILS, errors={f"workerData.{k}": v for k, v in errors.items()})
    return worker_details.for_submission(worker_data, fields, different_payment_email=different_payment_email)


def submit(
    session: Session,
    *,
    token: str | None,
    test_id: int,
    view: str,
    respondent: str | None = None,
    answers: Any,
    worker_data: Any,
    different_payment_email: bool | None = None,
    submission_id: Any,
    signals: Any = None,
    now: datetime | None = None,
) -> SubmitResult:
    """The test's answers (in its kind's payload shape) and, for a public respondent, their personal
    info (checked again here)."""
    mine = _as(session, token, test_id, respondent)
    fields = personal_fields(definition(session=session, test_id=test_id), Who(mine["account_id"], mine["respondent"]))
    details = checked_details(fields, worker_data, different_payment_email)
    return review_sessions.submit_review(
        **mine, view=view, answers=answers, worker_data=details, submission_id=submission_id, signals=signals, now=now
    )
