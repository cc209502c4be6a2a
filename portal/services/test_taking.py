"""Taking a test: access, screener, the review session (deadline and draft), submission.

CONTRACT (issue 5). The UI (states/pages) codes against exactly these names; the
service side implements them. Every function takes a SQLModel `Session` as
`session=` and is run from a state through `portal.db.run(fn, **kwargs)`.
`participant` identifies who is taking the test; it is always built on the server
(from the session cookie, or for public respondents from server-kept URL
parameters), never taken from an event argument.

Refusals raise `TestTakingError` (a ServiceError) whose `.errors` maps a field
path ('answers.<questionKey>', 'workerData.<field>', 'reviewId', '_global') to
the spec's message. Nothing is written when an error is raised.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlmodel import Session

from portal.services.errors import ServiceError


class TestTakingError(ServiceError):
    """A refusal; `.errors` holds field path -> message."""

    __test__ = False


class SessionExpiredError(TestTakingError):
    """The review session's deadline has passed (or it was cleared): answers and submissions are refused."""


class AlreadyReviewedError(TestTakingError):
    """This participant already has a review for this test. errors == {'reviewId': 'Test is already reviewed'}."""


@dataclass(frozen=True)
class Participant:
    """Who takes the test. account_id for signed-in users; respondent_project_id / worker_id for public respondents."""

    account_id: int | None = None
    respondent_project_id: str | None = None
    respondent_participant_id: str | None = None
    worker_id: str | None = None

    __test__ = False


@dataclass(frozen=True)
class SessionView:
    """The server review session as the browser may see it."""

    session_id: int
    started_at: datetime  # aware UTC
    deadline_at: datetime  # aware UTC; the browser draws the countdown from it
    duration_seconds: int  # the test's setting: 3600, 900 or 300
    extended: bool
    # Draft: answers keyed by question key (the spec's answer objects), and the position
    # {"step": "welcome"|"questions"|"end"|..., "subStep": int, "navigationHistory": [int, ...]}.
    answers: dict[str, Any] = field(default_factory=dict)
    position: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class TestPage:
    """Everything the rating route needs after loading, decided on the server.

    access: one of domain ACCESS_STATES ('ok', 'limit-reached', 'reviewed', 'unverified', 'not-invited',
            'session-expired', 'invitation-expired', 'test-removed', 'seniority-capacity-full', 'fallback').
    next:   what to show when access == 'ok':
            'sign-in' (redirect with return path), 'screener', 'screener-failed', 'survey', 'highlight',
            'preference', 'video' (redirect_url set), 'free-join', 'respondent-thank-you', 'thank-you'.
    """

    test_id: int
    access: str
    next: str
    title: str = ""  # the page title, domain.titles.test_page_title
    kind: str = ""  # survey | highlight | pricing | preference | video
    product_type: str = ""
    panel: str = ""
    redirect_url: str | None = None
    # The screener as shown: {type, question, answers: [text...], rows, columns, allowMultiple}; no correct answers.
    screener: dict[str, Any] | None = None
    # The survey as shown: {welcomePage, thankYouPage, questions: [...]} with options already in the
    # participant's (stable, per session) randomized order; nothing secret in it.
    survey: dict[str, Any] | None = None
    session: SessionView | None = None  # an active review session, if one exists
    # Personal-info fields enabled for this test and participant, with prefilled values.
    worker_fields: tuple[str, ...] = ()
    worker_prefill: dict[str, str] = field(default_factory=dict)
    # Thank-you variant after submission: 'crowd-work' | 'sign-up-promo' | 'homepage'; plus the referral link if any.
    thank_you_variant: str = "homepage"
    referral_link: str | None = None


@dataclass(frozen=True)
class SubmitResult:
    review_id: int
    reward_id: int | None
    survey_code: str | None
    created: bool  # False when this was a repeat of an accepted submission (idempotent)


def load_test_page(*, session: Session, test_id: Any, participant: Participant, params: dict[str, str]) -> TestPage:
    raise NotImplementedError


def submit_screener(*, session: Session, test_id: int, participant: Participant, selections: Any) -> bool:
    """Judge on the server. selections: single {"answer": i}, multiple {"answers": [i...]},
    matrix {"selections": {row_index: [col_index...]}} (zero-based). One response per participant and test;
    a second call returns the first result."""
    raise NotImplementedError


def start_session(*, session: Session, test_id: int, participant: Participant) -> SessionView:
    """Create (or return the active) review session with its deadline."""
    raise NotImplementedError


def save_draft(
    *, session: Session, test_id: int, participant: Participant, answers: dict[str, Any], position: dict[str, Any],
) -> SessionView:
    """Keep the draft answers and position. Raises SessionExpiredError after the deadline."""
    raise NotImplementedError


def extend_session(*, session: Session, test_id: int, participant: Participant) -> SessionView:
    raise NotImplementedError


def pending_review(*, session: Session, test_id: int, participant: Participant) -> tuple[bool, bool]:
    """(success, existing_review): whether an active, unexpired review session exists."""
    raise NotImplementedError


def clear_session(*, session: Session, test_id: int, participant: Participant) -> None:
    """Time is up (or the participant restarts): the pending review and its draft are cleared."""
    raise NotImplementedError


def submit_survey(
    *, session: Session, test_id: int, participant: Participant, answers: dict[str, Any],
    worker_data: dict[str, Any], submission_id: str,
) -> SubmitResult:
    """Validate everything with the domain rules and store one review, one reward and the completed invite in
    one transaction. Idempotent: repeating a submission_id that was accepted returns its result with
    created=False; another submission for a participant and test already reviewed raises AlreadyReviewedError.
    Raises TestTakingError with per-field errors, AlreadyReviewedError, SessionExpiredError."""
    raise NotImplementedError
