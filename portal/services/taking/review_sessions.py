"""Review sessions: a test in progress, its draft, its deadline, and the one submission of every kind.

The architecture's "Taking a test without losing anything": the server keeps the deadline and
the draft answers, refuses answers and submissions after the deadline, re-validates a submission
with its kind's own rules (portal/domain/taking/kinds: `validate`, `stored`) and stores it exactly once
(one review, one reward, the invite completed, the session submitted) in the caller's transaction
(portal.db.run commits it).

A session is always found from the caller's account (respondent key 'account:<id>') and the
test id, never from an id sent by the browser: another participant's session cannot be reached.

Every step that starts, extends or submits a session first asks take_access.require() whether
this caller may take this test on this view now (invite, verification, registration, status, kind,
screener, deadline, quotas); a refusal raises AccessDenied and stores nothing. The quota is checked
again at submission with the test row locked.

Choices the spec leaves open:
- A save or a submission is accepted until the deadline plus GRACE_SECONDS (the request may
  leave the browser in the last second and arrive a moment later).
- One extension of EXTENSION_SECONDS per session.
- Starting again after the deadline is refused (session-expired); Restart sets the old session aside.
- The submission id (chosen by the browser, one per submit attempt of a page) is kept in the
  review's worker_data under 'submissionId', so that a retry of the same submission returns the
  first result.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, func, select

from portal.domain.ids import whole_number
from portal.domain.taking import access, kinds, survey_branching
from portal.domain.taking.access import EXTENSION_SECONDS, GRACE_SECONDS, MAX_EXTENSIONS, respondent_key
from portal.domain.taking.kinds.base import order_seed
from portal.models import Invite, Review, ReviewSession, Reward, Test
from portal.services import partners, transitions, webhooks
from portal.services.errors import ServiceError
from portal.services.taking import access as take_access
from portal.services.taking import versions
from portal.services.taking.access import AccessDenied
from portal.services.taking.definitions import content_of
from portal.services.taking.loading import TestLoad, TestNotFound

__all__ = ["AccessDenied", "GRACE_SECONDS", "respondent_key"]
MAX_JSON_BYTES = 200_000
MAX_POSITION_BYTES = 20_000

MSG_EXPIRED = "Your session has expired. You can restart the review."
MSG_NO_SESSION = "There is no review in progress for this test. Please start the test again."
MSG_REVIEWED = "Test is already reviewed"
MSG_EXTENDED = "The time has already been extended."
MSG_NO_TEST = "This test is not available."
MSG_BAD_DATA = "The answers could not be read. Please reload the page."
MSG_TOO_LARGE = "The answers are too long to save."
MSG_FIX_ANSWERS = "Please check your answers."

_SUBMISSION_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
# A public respondent's key: 'public:<browser id>' or 'respondent:<project id>:<browser id>' (the browser
# id is a random UUID the browser keeps; nobody can guess another's).
PUBLIC_KEY = re.compile(r"^(public|respondent:[A-Za-z0-9_.-]{1,100}):[0-9a-f]{32}$")


class SessionExpiredError(ServiceError):
    pass


class NoSessionError(ServiceError):
    pass


class AlreadyReviewedError(ServiceError):
    pass


class AnswersError(ServiceError):
    pass


@dataclass(frozen=True)
class SubmitResult:
    review_id: int
    reward_id: int
    created: bool
    amount_cents: int = 0
    # A partner's participant (portal/services/partners.py): the crowd-work completion code, the panel's exit URL.
    completion_code: str | None = None
    exit_url: str | None = None


@dataclass(frozen=True)
class PendingReview:
    success: bool  # an active session that has not expired
    existing_review: bool  # the account has already reviewed the test


def _now(now: datetime | None) -> datetime:
    return now or datetime.now(UTC)


def _aware(value: datetime) -> datetime:
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value


def session_expired(row: Any, now: datetime) -> bool:
    """Whether a session's deadline plus the grace has passed (any row with a `deadline_at`)."""
    return now > _aware(row.deadline_at) + timedelta(seconds=GRACE_SECONDS)


_expired = session_expired


def _test(session: Session, test_id: Any) -> Test:
    number = whole_number(test_id) if isinstance(test_id, int) else None
    test = session.get(Test, number) if number is not None else None
    if test is None:
        raise ServiceError(MSG_NO_TEST)
    return test


def _key_of(account_id: int | None, respondent: str | None) -> str:
    """The respondent key: the account's, else a public respondent's ('public:<id>' or 'respondent:<project>:<id>')."""
    if account_id is not None:
        return respondent_key(account_id)
    if not isinstance(respondent, str) or not PUBLIC_KEY.match(respondent):
        raise NoSessionError(MSG_NO_SESSION)
    return respondent


def _latest(session: Session, test_id: int, key: str, *, lock: bool = False) -> ReviewSession | None:
    """The account's newest session for the test, whatever its status (locked on PostgreSQL when asked)."""
    stmt = (
        select(ReviewSession)
        .where(ReviewSession.test_id == test_id, ReviewSession.respondent_key == key)
        .order_by(ReviewSession.id.desc())
        .limit(1)
    )
    if lock:
        stmt = stmt.with_for_update()
    return session.exec(stmt).first()


def _active(session: Session, test_id: int, key: str, now: datetime, *, lock: bool = False) -> ReviewSession:
    """The respondent's active session, or NoSessionError / SessionExpiredError."""
    row = _latest(session, test_id, key, lock=lock)
    if row is None or row.status != "active":
        raise NoSessionError(MSG_NO_SESSION)
    if _expired(row, now):
        raise SessionExpiredError(MSG_EXPIRED)
    return row


def _mark(session: Session, row: ReviewSession, status: str, now: datetime) -> bool:
    row.status = status
    row.updated_at = now
    session.add(row)
    session.flush()
    return True


def _review(session: Session, test_id: int, key: str) -> Review | None:
    return session.exec(select(Review).where(Review.test_id == test_id, Review.respondent_key == key)).first()


def _json_dict(value: Any, limit: int, field: str) -> dict[str, Any]:
    """A JSON object of string keys within `limit` bytes, else a refusal."""
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        raise AnswersError(MSG_BAD_DATA, field=field)
    try:
        size = len(json.dumps(value, ensure_ascii=False, allow_nan=False).encode())
    except (TypeError, ValueError):
        raise AnswersError(MSG_BAD_DATA, field=field) from None
    if size > limit:
        raise AnswersError(MSG_TOO_LARGE, field=field)
    return value


def _unknown_keys(test: Test, answers: dict[str, Any]) -> None:
    """A draft holds answers by question key: only the test's own questions."""
    known = {q.get("key") for q in kinds.kind_of(test.product_type).questions(content_of(test))}
    unknown = {f"answers.{key}": survey_branching.UNKNOWN_QUESTION for key in answers if key not in known}
    if unknown:
        raise AnswersError(MSG_FIX_ANSWERS, errors=unknown)


def _view(test: Test) -> str:
    return kinds.kind_of(test.product_type).view


def _allowed(
    session: Session,
    test_id: Any,
    account_id: int | None,
    respondent: str | None,
    view: str,
    now: datetime,
    decided: TestLoad | None = None,
) -> None:
    """The access decision for this step; a review already stored reads as AlreadyReviewedError and a
    session that ran out as SessionExpiredError (the pages handle those two)."""
    try:
        take_access.require(
            session=session,
            test_id=test_id,
            account_id=account_id,
            respondent=respondent,
            view=view,
            now=now,
            decided=decided,
        )
    except AccessDenied as denied:
        if denied.state == access.REVIEWED:
            raise AlreadyReviewedError(MSG_REVIEWED, errors={"reviewId": MSG_REVIEWED}) from None
        if denied.state == access.SESSION_EXPIRED:
            raise SessionExpiredError(MSG_EXPIRED) from None
        raise


def start_session(
    session: Session,
    *,
    test_id: int,
    account_id: int | None,
    respondent: str | None = None,
    view: str | None = None,
    now: datetime | None = None,
) -> ReviewSession:
    """The account's active session for the test (a second tab or device gets the same one), else a new
    one, when the caller may take the test on `view` now."""
    key = _key_of(account_id, respondent)
    now = _now(now)
    # The access decision's one statement reads the test and, for a participant, their review too.
    number = whole_number(test_id) if isinstance(test_id, int) else None
    try:
        load = (
            take_access.decide(session=session, test_id=number, account_id=account_id, respondent=respondent, now=now)
            if number is not None
            else None
        )
    except TestNotFound:
        load = None
    if load is None:
        raise ServiceError(MSG_NO_TEST)
    reviewed = load.reviewed if account_id is not None else _review(session, load.test_id, key) is not None
    if reviewed:  # before any other refusal: their answer is in
        raise AlreadyReviewedError(MSG_REVIEWED, errors={"reviewId": MSG_REVIEWED})
    # A session that ran out is refused here (session-expired): the rating page's Restart sets it aside.
    _allowed(
        session, load.test_id, account_id, respondent, view or kinds.kind_of(load.product_type).view, now, decided=load
    )
    row = _latest(session, load.test_id, key, lock=True)
    if row is not None and row.status == "active" and not _expired(row, now):
        return row
    version_id = versions.newest_id(session, load.test_id)
    row = ReviewSession(
        test_id=load.test_id,
        version_id=version_id,
        account_id=account_id,
        respondent_key=key,
        started_at=now,
        deadline_at=now + timedelta(seconds=load.session_seconds),
        updated_at=now,
    )
    session.add(row)
    session.flush()
    if version_id is not None:
        # Sealed after the row is written: the row's key check on the test waits for a staff edit holding the
        # test, and only then is the version locked (the same order as the edit's: never a deadlock).
        versions.seal(session, version_id)
    return row


def active_session(
    session: Session,
    *,
    test_id: int,
    account_id: int | None,
    respondent: str | None = None,
    now: datetime | None = None,
) -> ReviewSession | None:
    """The account's session in progress for the test (active, deadline not passed), without starting one."""
    key = _key_of(account_id, respondent)
    row = _latest(session, test_id, key)
    if row is None or row.status != "active" or _expired(row, _now(now)):
        return None
    return row


def restart(
    session: Session,
    *,
    test_id: int,
    account_id: int | None,
    respondent: str | None = None,
    now: datetime | None = None,
) -> bool:
    """The participant chose Restart after their session ran out: the old session is set aside
    ('restarted'), so the test opens again at its welcome page. False when there is nothing to restart."""
    key = _key_of(account_id, respondent)
    now = _now(now)
    row = _latest(session, test_id, key, lock=True)
    if row is None or row.status == "submitted" or (row.status == "active" and not _expired(row, now)):
        return False
    if row.status == "restarted":
        return False
    return _mark(session, row, "restarted", now)


def save_draft(
    session: Session,
    *,
    test_id: int,
    account_id: int | None,
    respondent: str | None = None,
    answers: Any,
    position: Any,
    now: datetime | None = None,
) -> ReviewSession:
    """Keep the draft answers and the position (step, subStep, navigationHistory) on the active session."""
    key = _key_of(account_id, respondent)
    now = _now(now)
    answers = _json_dict(answers, MAX_JSON_BYTES, "answers")
    position = _json_dict(position, MAX_POSITION_BYTES, "position")
    test = _test(session, test_id)
    row = _active(session, test.id, key, now, lock=True)
    _unknown_keys(versions.test_on(session, test, row.version_id), answers)
    row.draft_answers = answers
    row.draft_position = position
    row.updated_at = now
    session.add(row)
    session.flush()
    return row


def extend_session(
    session: Session,
    *,
    test_id: int,
    account_id: int | None,
    respondent: str | None = None,
    view: str | None = None,
    now: datetime | None = None,
) -> ReviewSession:
    """Move the deadline by EXTENSION_SECONDS, once per session, before it passes."""
    key = _key_of(account_id, respondent)
    now = _now(now)
    test = _test(session, test_id)
    row = _active(session, test.id, key, now, lock=True)
    _allowed(session, test.id, account_id, respondent, view or _view(test), now)
    if row.extensions >= MAX_EXTENSIONS:
        raise ServiceError(MSG_EXTENDED)
    row.extensions += 1
    row.deadline_at = _aware(row.deadline_at) + timedelta(seconds=EXTENSION_SECONDS)
    row.updated_at = now
    session.add(row)
    session.flush()
    return row


def pending_review(
    session: Session,
    *,
    test_id: int,
    account_id: int | None,
    respondent: str | None = None,
    now: datetime | None = None,
) -> PendingReview:
    """Whether the account has a session in progress (not expired) and whether it has already reviewed the test."""
    key = _key_of(account_id, respondent)
    now = _now(now)
    row = _latest(session, test_id, key)
    success = row is not None and row.status == "active" and not _expired(row, now)
    return PendingReview(success=success, existing_review=_review(session, test_id, key) is not None)


def clear_session(
    session: Session,
    *,
    test_id: int,
    account_id: int | None,
    respondent: str | None = None,
    now: datetime | None = None,
) -> bool:
    """Mark the account's active session 'cleared' (time up, or the participant gave up); False when none."""
    key = _key_of(account_id, respondent)
    now = _now(now)
    row = _latest(session, test_id, key, lock=True)
    if row is None or row.status != "active":
        return False
    return _mark(session, row, "cleared", now)


def _existing_result(session: Session, review: Review, submission_id: str) -> SubmitResult:
    if (review.worker_data or {}).get("submissionId") != submission_id:
        raise AlreadyReviewedError(MSG_REVIEWED, errors={"reviewId": MSG_REVIEWED})
    reward = session.exec(select(Reward).where(Reward.review_id == review.id)).first()
    finish = partners.finish_of(session, review)
    return SubmitResult(
        review_id=review.id,
        reward_id=reward.id if reward else 0,
        created=False,
        amount_cents=reward.amount_cents if reward else 0,
        completion_code=finish.completion_code,
        exit_url=finish.exit_url,
    )


def _submission(
    answers: Any,
    worker_data: Any,
    signals: Any,
    submission_id: Any,
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """A submission's shape and size: the answers, worker data and signals as JSON objects within their limits."""
    if not isinstance(answers, dict):
        raise AnswersError(MSG_BAD_DATA, field="answers")
    answers = _json_dict(answers, MAX_JSON_BYTES, "answers")
    worker_data = _json_dict(worker_data if worker_data is not None else {}, MAX_POSITION_BYTES, "workerData")
    signals = _json_dict(signals if signals is not None else {}, MAX_POSITION_BYTES, "signals")
    if not isinstance(submission_id, str) or not _SUBMISSION_ID.match(submission_id):
        raise ServiceError(MSG_BAD_DATA, field="submissionId")
    return answers, worker_data, signals


def _portal_kind(test: Test) -> kinds.Kind:
    kind = kinds.kind_of(test.product_type)
    if not kind.taken_in_portal:
        raise ServiceError(access.MSG_NOT_THIS_KIND)
    return kind


def _stored(kind: kinds.Kind, content: dict[str, Any], answers: dict[str, Any]) -> Any:
    """The answers checked by the kind's own rules (AnswersError with every error), as they are stored."""
    if kind.validate is None or kind.stored is None:  # not taken in the portal (see _portal_kind)
        raise ServiceError(access.MSG_NOT_THIS_KIND)
    errors = kind.validate(content, answers)
    if errors:
        raise AnswersError(MSG_FIX_ANSWERS, errors=errors)
    return kind.stored(content, answers)


def check_submission(
    session: Session, *, test_id: Any, answers: Any, worker_data: Any = None, signals: Any = None, submission_id: Any
) -> Any:
    """Every check submit_review makes of the submission itself (its shape and size, the kind's answer
    rules), storing nothing: the staff preview's submission (portal/services/admin/preview.py).
    Returns the answers as a review would keep them; AnswersError / ServiceError otherwise."""
    answers, _, _ = _submission(answers, worker_data, signals, submission_id)
    test = _test(session, test_id)
    return _stored(_portal_kind(test), content_of(test), answers)


def submit_review(
    session: Session,
    *,
    test_id: int,
    account_id: int | None,
    respondent: str | None = None,
    answers: Any,
    worker_data: Any,
    submission_id: Any,
    signals: Any = None,
    view: str | None = None,
    now: datetime | None = None,
) -> SubmitResult:
    """Store a test's answers once, for every kind: review, PENDING reward priced as the invite says,
    invite completed, session submitted.

    The answers come in the kind's payload shape and are checked by the kind's own rules
    (portal/domain/taking/kinds); invalid answers are refused with per-field errors ('answers.<...>') and
    nothing is stored. A repeated submission with the same submission_id returns the first result
    (created=False). `signals` are the reading signals the page measured (kept with the review)."""
    key = _key_of(account_id, respondent)
    now = _now(now)
    answers, worker_data, signals = _submission(answers, worker_data, signals, submission_id)
    test = _test(session, test_id)
    kind = _portal_kind(test)
    # Lock the session first: a concurrent submission of the same account waits here, then sees the review.
    row = _latest(session, test.id, key, lock=True)
    existing = _review(session, test.id, key)
    if existing is not None:
        return _existing_result(session, existing, submission_id)
    if row is None or row.status != "active":
        raise NoSessionError(MSG_NO_SESSION)
    if _expired(row, now):
        raise SessionExpiredError(MSG_EXPIRED)
    _allowed(session, test.id, account_id, respondent, view or kind.view, now)
    # Checked and stored on the version the session started on, whatever staff have changed since.
    content = content_of(versions.test_on(session, test, row.version_id))
    stored = _stored(kind, content, answers)
    # The order the server drew for this participant (what they saw), never the browser's word.
    options_order = kind.order(content, order_seed(key, test.id)) if kind.order else []
    take_access.require_place(session=session, test_id=test.id, account_id=account_id, respondent=key)
    invite = (
        None
        if account_id is None
        else session.exec(
            select(Invite)
            .where(Invite.account_id == account_id, Invite.test_id == test.id, Invite.status == "open")
            .order_by(Invite.created_at.desc(), Invite.id.desc())
            .limit(1)
            .with_for_update()
        ).first()
    )
    amount = invite.amount_cents if invite is not None else test.payout_cents
    try:
        with session.begin_nested():
            review = Review(
                test_id=test.id,
                version_id=row.version_id,
                account_id=account_id,
                respondent_key=key,
                session_id=row.id,
                kind=kind.review_kind,
                answers=stored,
                worker_data={**worker_data, "submissionId": submission_id},
                signals=signals,
                options_order=options_order,
                created_at=now,
            )
            session.add(review)
            session.flush()
            reward = Reward(
                review_id=review.id,
                account_id=account_id,
                amount_cents=amount,
                status="PENDING",
                created_at=now,
                test_id=test.id,
                product_type=test.product_type,
            )
            session.add(reward)
            session.flush()
            # The invite and the session move only from the state this submission found them in (a write
            # naming it): a session staff cleared meanwhile (in its grace seconds) refuses the submission,
            # and nothing is stored.
            if invite is not None:
                transitions.move(
                    session, Invite, Invite.id == invite.id, Invite.status == "open", values={"status": "completed"}
                )
            if not transitions.move(
                session,
                ReviewSession,
                ReviewSession.id == row.id,
                ReviewSession.status == "active",
                values={"status": "submitted", "updated_at": now},
            ):
                raise SessionExpiredError(MSG_EXPIRED)  # cleared by staff meanwhile (only expired ones are)
            # A partner's participant: the completion code, the outcome and the report owed (the same transaction).
            finish = partners.on_submitted(session, test=test, review=review, now=now)
    except IntegrityError:  # a concurrent submission stored the review first
        existing = _review(session, test.id, key)
        if existing is None:
            raise
        return _existing_result(session, existing, submission_id)
    _submitted_events(session, test, review, reward)
    return SubmitResult(
        review_id=review.id,
        reward_id=reward.id,
        created=True,
        amount_cents=amount,
        completion_code=finish.completion_code,
        exit_url=finish.exit_url,
    )


def _submitted_events(session: Session, test: Test, review: Review, reward: Reward) -> None:
    """The webhooks of a review stored by this submission: review.submitted, and test.full when it took the test's
    last place (the test is locked for the quota, so exactly one submission counts the limit reached)."""
    webhooks.review_submitted(session, review, reward)
    if test.participant_limit is not None:
        count = session.execute(select(func.count()).select_from(Review).where(Review.test_id == test.id)).scalar_one()
        if count == test.participant_limit:
            webhooks.test_full(session, test, count)
