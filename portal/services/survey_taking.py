"""What the survey screens ask of the server, each in one transaction and one thread hop.

Every call resolves the participant again from the session token (a revoked session is noticed
on the next event) and then works on that account's own review session (review_sessions), so a
browser can never name another participant's session.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlmodel import Session

from portal.models import ReviewSession
from portal.services import review_sessions
from portal.services.errors import ServiceError
from portal.services.review_sessions import PendingReview, SubmitResult
from portal.services.sessions import resolve_user
from portal.services.survey_definitions import SurveyDefinition, cached_survey, load_survey

MSG_SIGNED_OUT = "Your session has ended. Please sign in again to continue the test."


class SignedOutError(ServiceError):
    pass


@dataclass(frozen=True)
class Entry:
    """The survey as the participant finds it on opening the page."""

    definition: SurveyDefinition
    account_id: int
    active: ReviewSession | None
    reviewed: bool


def _account(session: Session, token: str | None) -> int:
    user = resolve_user(session=session, token=token)
    if user is None:
        raise SignedOutError(MSG_SIGNED_OUT)
    return user.account_id


def definition(*, session: Session, test_id: int) -> SurveyDefinition:
    found = cached_survey(test_id) or load_survey(session=session, test_id=test_id)
    if found is None:
        raise ServiceError(review_sessions.MSG_NO_TEST)
    return found


def enter(*, session: Session, token: str | None, test_id: int, now: datetime | None = None) -> Entry:
    account_id = _account(session, token)
    found = definition(session=session, test_id=test_id)
    pending = review_sessions.pending_review(session=session, test_id=test_id, account_id=account_id, now=now)
    active = review_sessions.active_session(session=session, test_id=test_id, account_id=account_id, now=now)
    return Entry(definition=found, account_id=account_id, active=active, reviewed=pending.existing_review)


def start(*, session: Session, token: str | None, test_id: int, now: datetime | None = None) -> ReviewSession:
    account_id = _account(session, token)
    return review_sessions.start_session(session=session, test_id=test_id, account_id=account_id, now=now)


def save(*, session: Session, token: str | None, test_id: int, answers: Any, position: Any,
         now: datetime | None = None) -> ReviewSession:
    account_id = _account(session, token)
    return review_sessions.save_draft(session=session, test_id=test_id, account_id=account_id, answers=answers,
                                      position=position, now=now)


def draft(*, session: Session, token: str | None, test_id: int, now: datetime | None = None) -> ReviewSession | None:
    account_id = _account(session, token)
    return review_sessions.active_session(session=session, test_id=test_id, account_id=account_id, now=now)


def extend(*, session: Session, token: str | None, test_id: int, now: datetime | None = None) -> ReviewSession:
    account_id = _account(session, token)
    return review_sessions.extend_session(session=session, test_id=test_id, account_id=account_id, now=now)


def check(*, session: Session, token: str | None, test_id: int, now: datetime | None = None) -> PendingReview:
    account_id = _account(session, token)
    return review_sessions.pending_review(session=session, test_id=test_id, account_id=account_id, now=now)


def clear(*, session: Session, token: str | None, test_id: int, now: datetime | None = None) -> bool:
    account_id = _account(session, token)
    return review_sessions.clear_session(session=session, test_id=test_id, account_id=account_id, now=now)


def restart(*, session: Session, token: str | None, test_id: int, now: datetime | None = None) -> bool:
    account_id = _account(session, token)
    return review_sessions.restart(session=session, test_id=test_id, account_id=account_id, now=now)


def submit(*, session: Session, token: str | None, test_id: int, answers: Any, worker_data: Any,
           submission_id: Any, now: datetime | None = None) -> SubmitResult:
    account_id = _account(session, token)
    return review_sessions.submit_survey(session=session, test_id=test_id, account_id=account_id, answers=answers,
                                         worker_data=worker_data, submission_id=submission_id, now=now)
