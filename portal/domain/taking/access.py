"""Taking a test: who may open it (access states), which view comes next, and the session timer.

Pure rules, no database: the service gathers `AccessFacts`, `decide_access()` names the state,
`access_message()` gives the page a state shows, `next_view()` picks the screen once access is ok.
Texts are the spec's (test-taking sections 8 and 9); the choices it leaves open are recorded in
docs/decisions.md ("Taking a test: access and timer (issue 5)").
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

from portal.domain import invites
from portal.domain.reference_data import PANELS, SESSION_LENGTHS, TEST_STATUSES
from portal.domain.taking import kinds

# --- access states -------------------------------------------------------------------------
OK = "ok"
LIMIT_REACHED = "limit-reached"
REVIEWED = "reviewed"
UNVERIFIED = "unverified"
NOT_INVITED = "not-invited"
SESSION_EXPIRED = "session-expired"
INVITATION_EXPIRED = "invitation-expired"
TEST_REMOVED = "test-removed"
TEST_PAUSED = "test-paused"
SENIORITY_CAPACITY_FULL = "seniority-capacity-full"
FALLBACK = "fallback"
ACCESS_STATES = (
    OK,
    LIMIT_REACHED,
    REVIEWED,
    UNVERIFIED,
    NOT_INVITED,
    SESSION_EXPIRED,
    INVITATION_EXPIRED,
    TEST_REMOVED,
    TEST_PAUSED,
    SENIORITY_CAPACITY_FULL,
    FALLBACK,
)

# Only a running test takes responses; the other known statuses mean "no longer available".
TAKING_STATUS = "running"
PAUSED_STATUS = "paused"  # reports paused it (portal/domain/problem_reports.py): answers kept, the clock stopped
SESSION_NONE, SESSION_ACTIVE, SESSION_EXPIRED_STATE = "none", "active", "expired"
SESSION_STATES = (SESSION_NONE, SESSION_ACTIVE, SESSION_EXPIRED_STATE)
# Respondents from the external research-participant service must hold an invite.
INVITE_ONLY_PANELS = frozenset({"external"})
# A save or a submission is accepted until the deadline plus this grace (the request may leave the
# browser in the last second and arrive a moment later).
GRACE_SECONDS = 10


def respondent_key(account_id: int) -> str:
    """The key a participant's sessions, screener response and review are kept under."""
    return f"account:{int(account_id)}"


@dataclass(frozen=True)
class AccessMessage:
    """What an access-state page shows: a title (may be empty), the text, an optional link."""

    title: str
    text: str
    link_label: str | None = None
    link_url: str | None = None


_FULL = AccessMessage(
    "Thank you for your interest",
    "This test is already full. The participant quota has been reached; watch for future invites.",
)
_MESSAGES: dict[str, AccessMessage] = {
    REVIEWED: AccessMessage("", "You've already reviewed this test."),
    UNVERIFIED: AccessMessage("", "Verified profile required to take this test."),
    LIMIT_REACHED: _FULL,
    SENIORITY_CAPACITY_FULL: _FULL,
    NOT_INVITED: AccessMessage(
        "", "You were not invited to participate in this test. Please contact support for help."
    ),
    SESSION_EXPIRED: AccessMessage("", "Your session has expired. You can restart the review.", "Restart"),
    INVITATION_EXPIRED: AccessMessage(
        "Link expired", "This research opportunity has ended. Invites are valid for 24 hours."
    ),
    TEST_REMOVED: AccessMessage(
        "Test unavailable",
        "We apologize for the inconvenience. This test was deleted or is no longer available.",
    ),
    FALLBACK: AccessMessage("", "Unable to load test. Please try again later or contact support."),
    TEST_PAUSED: AccessMessage(
        "Test paused",
        "This test is paused while we look into a problem participants reported. If you started it, your answers "
        "are kept and your time has stopped: come back later to finish where you were.",
    ),
}


# The Restart link's query parameter (the rating page sets the expired session aside).
RESTART_PARAM = "restart"


def access_message(state: str, test_id: int) -> AccessMessage | None:
    """The page for a blocking state (None for ok). Unknown states get the fallback page.

    session-expired links 'Restart' to the test's /rate URL with `?restart=1`, which sets the ended
    session aside so the test opens again at its welcome page.
    """
    if state == OK:
        return None
    message = _MESSAGES.get(state, _MESSAGES[FALLBACK])
    if message.link_label and not message.link_url:
        return AccessMessage(
            message.title, message.text, message.link_label, f"{invites.rating_path(test_id)}?{RESTART_PARAM}=1"
        )
    return message


def _count(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be a whole number of 0 or more")
    return value


def _frozen_counts(name: str, value: object) -> Mapping[str, int]:
    if not isinstance(value, Mapping):
        raise ValueError(f"{name} must be a mapping of seniority to a count")
    for key, count in value.items():
        if not isinstance(key, str):
            raise ValueError(f"{name} keys must be seniority keys")
        _count(f"{name}[{key}]", count)
    return MappingProxyType(dict(value))


@dataclass(frozen=True)
class AccessFacts:
    """What the service knows when a participant opens /test/{id}/rate.

    Counts exclude the participant's own review or session. `invite_status` is None when the
    participant holds no invite to this test. `seniority` is the participant's level for quota
    purposes (None when unknown).
    """

    test_status: str
    now: datetime
    panel: str = "b2b"
    test_removed: bool = False
    signed_in: bool = False
    # Registration finished and the personal e-mail verified (who may use the private pages).
    registered: bool = True
    verified: bool = False
    seniority: str | None = None
    invite_status: str | None = None
    invite_expires_at: datetime | None = None
    invite_required: bool = False
    has_review: bool = False
    session: str = SESSION_NONE
    participant_count: int = 0
    seniority_counts: Mapping[str, int] = field(default_factory=dict)
    participant_limit: int | None = None
    seniority_limits: Mapping[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.test_status, str):
            raise ValueError("test_status must be a string")
        if not isinstance(self.now, datetime):
            raise ValueError("now must be a datetime")
        if self.panel not in PANELS:
            raise ValueError(f"unknown panel {self.panel!r}")
        if self.session not in SESSION_STATES:
            raise ValueError(f"session must be one of {SESSION_STATES}")
        if self.invite_status is not None and self.invite_status not in invites.STATUSES:
            raise ValueError(f"unknown invite status {self.invite_status!r}")
        if self.invite_expires_at is not None and not isinstance(self.invite_expires_at, datetime):
            raise ValueError("invite_expires_at must be a datetime")
        _count("participant_count", self.participant_count)
        if self.participant_limit is not None:
            _count("participant_limit", self.participant_limit)
        object.__setattr__(self, "seniority_counts", _frozen_counts("seniority_counts", self.seniority_counts))
        object.__setattr__(self, "seniority_limits", _frozen_counts("seniority_limits", self.seniority_limits))


def decide_access(facts: AccessFacts) -> str:
    """The access state for these facts. The first rule that matches wins:

    1. test-removed: the test is removed (flag or status 'removed') or not running
       (draft, scheduled, stopped, completed ...): nothing the participant does helps.
       An unknown status gives the fallback state; a paused test (reports) gives test-paused.
    2. reviewed: the participant already reviewed it (before any quota: their answer counts).
    3. not-invited: an invite-only test (external panel, or `invite_required`) and no invite,
       or the invite was canceled.
    4. invitation-expired: the invite's 24 hours are over (or it is marked expired).
       A completed invite means reviewed; a filled one means limit-reached.
    5. session-expired: their review session ran out without a submission (offer Restart).
    6. ok: an active session holds a place, so quotas filling meanwhile do not lock them out
       (unverified when the participant lost their verification meanwhile).
    7. limit-reached: participants counted >= the test's participant_limit.
    8. seniority-capacity-full: the participant's level has a quota and it is reached.
    9. unverified: a signed-in participant whose profile is not verified, or whose registration
       is not finished (asked last, so nobody verifies only to learn the test is full or closed
       to them).
    10. ok.
    """
    if not isinstance(facts, AccessFacts):
        raise TypeError("decide_access() takes AccessFacts")
    if facts.test_removed or facts.test_status == "removed":
        return TEST_REMOVED
    if facts.test_status not in TEST_STATUSES:
        return FALLBACK
    if facts.test_status == PAUSED_STATUS:
        return TEST_PAUSED
    if facts.test_status != TAKING_STATUS:
        return TEST_REMOVED
    if facts.has_review:
        return REVIEWED
    invite = (
        None
        if facts.invite_status is None
        else invites.effective_status(facts.invite_status, facts.invite_expires_at, facts.now)
    )
    if invite == invites.CANCELED or (invite is None and (facts.invite_required or facts.panel in INVITE_ONLY_PANELS)):
        return NOT_INVITED
    if invite == invites.EXPIRED:
        return INVITATION_EXPIRED
    if invite == invites.COMPLETED:
        return REVIEWED
    if invite == invites.FILLED:
        return LIMIT_REACHED
    if facts.session == SESSION_EXPIRED_STATE:
        return SESSION_EXPIRED
    unverified = facts.signed_in and not (facts.registered and facts.verified)
    if facts.session == SESSION_ACTIVE:
        return UNVERIFIED if unverified else OK
    quota = quota_state(facts)
    if quota != OK:
        return quota
    return UNVERIFIED if unverified else OK


def quota_state(facts: AccessFacts) -> str:
    """limit-reached, seniority-capacity-full or ok for the places counted in `facts`.

    The rating page counts reviews and others' live sessions; a submission counts the reviews
    only, with the test locked, so two last submissions cannot both take the last place."""
    if facts.participant_limit is not None and facts.participant_count >= facts.participant_limit:
        return LIMIT_REACHED
    if facts.seniority is not None and facts.seniority in facts.seniority_limits:
        if facts.seniority_counts.get(facts.seniority, 0) >= facts.seniority_limits[facts.seniority]:
            return SENIORITY_CAPACITY_FULL
    return OK


# --- the view once access is ok --------------------------------------------------------------
SIGN_IN, SCREENER = "sign-in", "screener"
FREE_JOIN, RESPONDENT_THANK_YOU, THANK_YOU = "free-join", "respondent-thank-you", "thank-you"
VIDEO_REDIRECT, SURVEY_VIEW, PREFERENCE_VIEW, HIGHLIGHT_VIEW = (
    kinds.VIDEO_REDIRECT,
    kinds.SURVEY_VIEW,
    kinds.PREFERENCE_VIEW,
    kinds.HIGHLIGHT_VIEW,
)


@dataclass(frozen=True)
class View:
    """The screen to show; `url` is set for the external video recorder."""

    name: str
    url: str | None = None


def video_redirect_url(url: str, email: str | None, first_name: str | None) -> str:
    """The recorder URL with `e` (email) and `n` (first name) added, URL-encoded.

    Its own query and fragment are kept; an `e`/`n` already in it is replaced; an empty value
    is left out. Only absolute http(s) URLs are accepted (ValueError otherwise).
    """
    if not isinstance(url, str):
        raise ValueError("the recorder URL must be a string")
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError("the recorder URL must be an absolute http(s) URL")
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k not in ("e", "n")]
    for key, value in (("e", email), ("n", first_name)):
        if value is not None and not isinstance(value, str):
            raise ValueError(f"{key} must be a string")
        if value and value.strip():
            query.append((key, value.strip()))
    return urlunsplit(parts._replace(query=urlencode(query)))


def next_view(
    *,
    product_type: str,
    signed_in: bool,
    respondent_project_id: str | None = None,
    has_public_qualifications: bool = False,
    has_screener: bool = False,
    screener_passed: bool = False,
    completed: bool = False,
    is_freemium: bool = False,
    video_recorder_url: str | None = None,
    email: str | None = None,
    first_name: str | None = None,
) -> View:
    """The screen after access is ok, in this order:

    sign-in (no user, no respondent project id and no public qualifications); a completed test
    (freemium -> free-join, respondent project id -> respondent-thank-you, else thank-you; before
    the screener, so nobody is screened again); the screener when the test has one and it is not
    passed; then the kind's view (portal/domain/taking/kinds): video -> the recorder URL (with e and n),
    survey kinds -> survey, preference -> preference, anything else (landing page, pricing ...) -> highlight.
    A video test without a recorder URL raises ValueError (the caller shows the fallback page).
    """
    if not isinstance(product_type, str) or not product_type:
        raise ValueError("product_type is required")
    if not signed_in and not respondent_project_id and not has_public_qualifications:
        return View(SIGN_IN)
    if completed:
        if is_freemium:
            return View(FREE_JOIN)
        return View(RESPONDENT_THANK_YOU if respondent_project_id else THANK_YOU)
    if has_screener and not screener_passed:
        return View(SCREENER)
    kind = kinds.kind_of(product_type)
    if kind.hands_off:
        if not video_recorder_url:
            raise ValueError("a video test needs a recorder URL")
        return View(kind.view, video_redirect_url(video_recorder_url, email, first_name))
    return View(kind.view)


# --- session timer ---------------------------------------------------------------------------
SESSION_SECONDS: tuple[int, ...] = SESSION_LENGTHS  # 3600, 900, 300
MID_WARNING_SECONDS = 15 * 60
MID_WARNING = "You have 15 minutes remaining..."
TIME_UP = "Time is up."
PENDING_REVIEW_POLL_MS = 300_000
TIMER_TICK_MS = 1000
# Not shown in the spec (docs/decisions.md): one extension of 10 minutes; the 'Timeout warning'
# modal shows below 5 minutes.
EXTENSION_SECONDS = 10 * 60
MAX_EXTENSIONS = 1
TIMEOUT_MODAL_SECONDS = 5 * 60
TIMEOUT_MODAL_TITLE = "Timeout warning"


def start_message(session_seconds: int) -> str:
    """'You have N minutes to complete the test. ...' for one of SESSION_SECONDS."""
    if isinstance(session_seconds, bool) or session_seconds not in SESSION_SECONDS:
        raise ValueError(f"session length must be one of {SESSION_SECONDS}")
    return (
        f"You have {session_seconds // 60} minutes to complete the test. "
        "Responses won't be accepted after the time is up."
    )


def shows_mid_warning(session_seconds: int) -> bool:
    """The 15-minutes-remaining warning only makes sense for sessions longer than 15 minutes."""
    return session_seconds > MID_WARNING_SECONDS


def can_extend(extensions_used: int) -> bool:
    return _count("extensions_used", extensions_used) < MAX_EXTENSIONS


def timeout_modal_seconds(session_seconds: int) -> int:
    """When the 'Timeout warning' shows: 5 minutes before the end, or in the last third of a
    shorter session (a 5-minute test would otherwise open with the warning)."""
    return min(TIMEOUT_MODAL_SECONDS, max(1, session_seconds // 3))


def shows_timeout_modal(remaining_seconds: int, extensions_used: int, session_seconds: int = 3600) -> bool:
    """The 'Timeout warning' modal (Extend time / Close): below its threshold, while an extension is left."""
    return 0 < _count("remaining_seconds", remaining_seconds) < timeout_modal_seconds(session_seconds) and can_extend(
        extensions_used
    )


# --- taking a test: the decision every start, extension and submission passes --------------------
MSG_SIGN_IN_FIRST = "Please sign in to take this test."
MSG_SCREEN_FIRST = "Please answer the screening question first."
MSG_NOT_THIS_KIND = "This test is not available."


def take_refusal(state: str, view: str | None, expected_view: str, test_id: int) -> str | None:
    """None when a step of taking the test on `expected_view` (survey, preference, highlight ...) is
    allowed for this access state and view; else the message the participant gets.

    The same decision as the rating page's: a blocking state gives that state's text; an ok state
    whose next screen is not this kind's (sign-in first, the screener not passed, a test of another
    kind) gives a short reason."""
    if state != OK:
        message = access_message(state, test_id)
        return message.text if message else MSG_NOT_THIS_KIND
    if view == expected_view:
        return None
    if view == SIGN_IN:
        return MSG_SIGN_IN_FIRST
    if view == SCREENER:
        return MSG_SCREEN_FIRST
    return MSG_NOT_THIS_KIND


# --- the browser's record of the tests it completed (assets/portal.js sets it after a submission) -----
COMPLETED_COOKIE = "completedTests"


def completed_tests(raw: str | None) -> set[int]:
    """The test ids in a browser's 'completedTests' cookie (a URI-encoded JSON list); anything else: none."""
    if raw is None:
        return set()
    try:
        values = json.loads(unquote(raw))
    except ValueError:
        return set()
    return {v for v in values if isinstance(v, int) and not isinstance(v, bool)} if isinstance(values, list) else set()
