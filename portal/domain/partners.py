"""The partner platforms' round trips (issue 39, item 5): pure rules, no database, no network.

Three partners bring participants without an account to a test and want to know how it ended:

- **respondent**: the external research-participant service (Respondent-style). Its link carries
  `respondent_project_id` and `respondent_screener_response_id`; the portal asks the service whether that
  screener response is invited to that project (the spec's `GET /tester/respondent-participant`:
  {screenerResponseData, isInvited, errors}) before the test opens, and reports the completion back.
- **crowd-work**: MTurk-style links with `assignmentId`, `workerId`, optional `hitId` and `turkSubmitTo`. The
  worker gets a completion code on the thank-you page; the requester checks it through the API.
- **panel**: a panel exchange (Cint-style). Its entry link is signed (`sig`, HMAC-SHA256 of the canonical
  request with the shared secret); at the end the participant is sent back to the exchange's exit URL with the
  outcome, the rid and a signature, and a server-to-server callback is posted.

The signing scheme (entry, exit and callback) is `canonical()` + `sign()`; see /tmp notes and docs/decisions.md
("Partner round trips (issue 39)").
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta
from urllib.parse import quote, urlencode, urlsplit, urlunsplit

RESPONDENT, CROWD_WORK, PANEL = "respondent", "crowd-work", "panel"
PARTNERS = (RESPONDENT, CROWD_WORK, PANEL)

# --- URL parameters ---------------------------------------------------------------------------------
PROJECT_PARAM = "respondent_project_id"  # the spec's tracking parameter (stored per test)
SCREENER_RESPONSE_PARAM = "respondent_screener_response_id"  # the spec call's screenerResponseId
ASSIGNMENT_PARAM, WORKER_PARAM, HIT_PARAM, SUBMIT_TO_PARAM = "assignmentId", "workerId", "hitId", "turkSubmitTo"
# MTurk's preview of a HIT (the worker has not accepted it): no assignment to record.
ASSIGNMENT_NOT_AVAILABLE = "ASSIGNMENT_ID_NOT_AVAILABLE"
PANEL_PARAM, RID_PARAM, SIG_PARAM = "panel", "rid", "sig"
OUTCOME_PARAM, TEST_PARAM = "outcome", "test"

MAX_ID_LENGTH = 100
_ID = re.compile(r"^[A-Za-z0-9_.:-]{1,100}$")

# --- outcomes (what the exchange is told) -------------------------------------------------------------
COMPLETE, SCREENED_OUT, OVER_QUOTA, QUALITY = "complete", "screenout", "overquota", "quality"
OUTCOMES = (COMPLETE, SCREENED_OUT, OVER_QUOTA, QUALITY)
OUTCOME_LABELS = {
    COMPLETE: "complete",
    SCREENED_OUT: "screened out",
    OVER_QUOTA: "over quota",
    QUALITY: "quality (rejected)",
}
# Access states of portal/domain/taking/access.py that end a panel entrant's visit, and their outcome.
_STATE_OUTCOMES = {
    "limit-reached": OVER_QUOTA,
    "seniority-capacity-full": OVER_QUOTA,
}

# --- messages ------------------------------------------------------------------------------------------
# The spec's respondent flow text (test-taking, messages).
MSG_NOT_INVITED = "You are not invited to participate to this test."
MSG_RESPONDENT_UNAVAILABLE = "An error occurred. {error}"
MSG_RESPONDENT_DOWN = "We could not check your invitation right now. Please try again in a few minutes."
MSG_BAD_LINK_TITLE = "Link not valid"
MSG_BAD_SIGNATURE = (
    "This link is not valid: its signature does not match. Please go back to the survey panel and open the test "
    "from there again."
)
MSG_UNKNOWN_PANEL = "This link names a survey panel this portal does not work with."
MSG_BAD_PARAMS = "This link is missing some of its details. Please open the test from the panel's page again."

# --- completion codes ----------------------------------------------------------------------------------
CODE_LABEL = "Your completion code"
CODE_COPY = "Copy code"
CODE_HELP = "Paste this code into the task on the crowd-work platform to get paid."
# No 0/O, 1/I/L, 5/S, 2/Z, 8/B: readable aloud and when copied by hand (25 letters and digits).
CODE_ALPHABET = "34679ACDEFGHJKMNPQRTUVWXY"
CODE_LENGTH = 10
_CODE = re.compile(rf"^[{CODE_ALPHABET}]{{{CODE_LENGTH}}}$")

# --- delivery of callbacks -------------------------------------------------------------------------------
# Retried with backoff for at least a day (30 s doubling, capped at an hour: 30 tries span ~26 hours).
CALLBACK_MAX_ATTEMPTS = 30
CALLBACK_BASE_SECONDS = 30
CALLBACK_MAX_DELAY_SECONDS = 3600


def clean_id(value: object) -> str | None:
    """A partner's id from a URL: 1-100 letters, digits or `_.:-`, else None."""
    if not isinstance(value, str):
        return None
    text = value.strip()
    return text if _ID.match(text) else None


def new_completion_code() -> str:
    """An unguessable completion code: 10 characters of a 25-letter readable alphabet (~46 bits)."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normal_code(value: object) -> str | None:
    """A completion code as typed (spaces and dashes dropped, upper case) if it has the code's shape, else None."""
    if not isinstance(value, str) or len(value) > 40:
        return None
    text = re.sub(r"[\s-]", "", value).upper()
    return text if _CODE.match(text) else None


def callback_delay(attempts: int) -> timedelta:
    """The wait after `attempts` failed deliveries: 30 s, 60 s, 2 min ... capped at an hour."""
    return timedelta(seconds=min(CALLBACK_BASE_SECONDS * 2 ** max(attempts - 1, 0), CALLBACK_MAX_DELAY_SECONDS))


# --- signing ---------------------------------------------------------------------------------------------
def canonical(path: str, params: Mapping[str, str]) -> str:
    """The signed text of a link: its path, '?', and its parameters except `sig`, sorted by name, each
    `name=value` percent-encoded (RFC 3986, space as %20), joined by '&'. Example: `/test/7/rate?panel=cint&rid=R1`.
    """
    pairs = sorted((str(k), str(v)) for k, v in params.items() if k != SIG_PARAM)
    query = "&".join(f"{quote(k, safe='')}={quote(v, safe='')}" for k, v in pairs)
    return f"{path}?{query}"


def sign(secret: str, text: str) -> str:
    """HMAC-SHA256 of `text` with the shared secret, as lowercase hex."""
    if not secret:
        raise ValueError("no shared secret")
    return hmac.new(secret.encode(), text.encode(), hashlib.sha256).hexdigest()


def verify(secret: str, path: str, params: Mapping[str, str]) -> bool:
    """Whether `params['sig']` signs `path` and the other parameters (constant-time compare)."""
    given = params.get(SIG_PARAM)
    if not secret or not isinstance(given, str) or not re.fullmatch(r"[0-9a-f]{64}", given.strip().lower()):
        return False
    return hmac.compare_digest(sign(secret, canonical(path, params)), given.strip().lower())


def signed_url(secret: str, url: str, params: Mapping[str, str]) -> str:
    """`url` with `params` and their `sig` (the url's own query is replaced)."""
    parts = urlsplit(url)
    clean = {k: v for k, v in params.items() if k != SIG_PARAM}
    sig = sign(secret, canonical(parts.path, clean))
    return urlunsplit(parts._replace(query=urlencode({**clean, SIG_PARAM: sig})))


def body_signature(secret: str, timestamp: str, body: bytes) -> str:
    """A callback's `X-Partner-Signature`: `sha256=` + HMAC-SHA256 of `<timestamp>.<body>`."""
    digest = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    return f"sha256={digest}"


def valid_body(secret: str, timestamp: str, body: bytes, signature: str) -> bool:
    return bool(secret) and hmac.compare_digest(body_signature(secret, timestamp, body), signature or "")


# --- reading a link ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Arrival:
    """Which partner a link of /test/{id}/rate names, and its ids (nothing verified yet)."""

    partner: str
    project_id: str | None = None
    screener_response_id: str | None = None
    assignment_id: str | None = None
    worker_id: str | None = None
    hit_id: str | None = None
    submit_to: str | None = None
    panel: str | None = None
    rid: str | None = None
    # A link that names the partner but is missing or mangling an id it needs.
    malformed: bool = False


def arrival(query: Mapping[str, str]) -> Arrival | None:
    """The partner a rating link's query names (None: none). The panel exchange wins over the others (its link
    is signed), then the research-participant service (a screener response id), then crowd-work (an assignment)."""
    if PANEL_PARAM in query or SIG_PARAM in query:
        panel, rid = clean_id(query.get(PANEL_PARAM)), clean_id(query.get(RID_PARAM))
        return Arrival(PANEL, panel=panel, rid=rid, malformed=panel is None or rid is None)
    if SCREENER_RESPONSE_PARAM in query:
        project, response = clean_id(query.get(PROJECT_PARAM)), clean_id(query.get(SCREENER_RESPONSE_PARAM))
        return Arrival(
            RESPONDENT, project_id=project, screener_response_id=response, malformed=not (project and response)
        )
    if ASSIGNMENT_PARAM in query or WORKER_PARAM in query:
        assignment = clean_id(query.get(ASSIGNMENT_PARAM))
        if assignment == ASSIGNMENT_NOT_AVAILABLE:
            assignment = None
        submit_to = query.get(SUBMIT_TO_PARAM)
        submit_to = submit_to if isinstance(submit_to, str) and _https_or_loopback(submit_to) else None
        return Arrival(
            CROWD_WORK,
            assignment_id=assignment,
            worker_id=clean_id(query.get(WORKER_PARAM)),
            hit_id=clean_id(query.get(HIT_PARAM)),
            submit_to=submit_to,
        )
    return None


def _https_or_loopback(url: str) -> bool:
    parts = urlsplit(url.strip())
    host = (parts.hostname or "").lower()
    return len(url) <= 300 and (
        parts.scheme == "https" or (parts.scheme == "http" and host in ("localhost", "127.0.0.1"))
    )


@dataclass(frozen=True)
class InviteCheck:
    """The service's answer to GET respondent-participant: {screenerResponseData, isInvited, errors}."""

    invited: bool
    data: dict[str, object]
    errors: tuple[str, ...]


def read_invite_check(answer: object) -> InviteCheck:
    """The answer as the spec's table shapes it; anything else reads as not invited with an error."""
    if not isinstance(answer, Mapping):
        return InviteCheck(False, {}, ("The research service answered something unreadable.",))
    raw_errors = answer.get("errors") or []
    errors = tuple(
        str(e.get("message") if isinstance(e, Mapping) else e)[:300]
        for e in (raw_errors if isinstance(raw_errors, list) else [raw_errors])
    )
    data = answer.get("screenerResponseData")
    return InviteCheck(answer.get("isInvited") is True, dict(data) if isinstance(data, Mapping) else {}, errors)


def refusal_text(check: InviteCheck) -> str:
    """What a respondent the service did not admit sees (the spec's respondent flow texts)."""
    if not check.invited and not check.errors:
        return MSG_NOT_INVITED
    if check.errors:
        return MSG_RESPONDENT_UNAVAILABLE.format(error=check.errors[0])
    return MSG_NOT_INVITED


def outcome_for_state(state: str) -> str | None:
    """The outcome a panel entrant is sent back with when the rating page blocks them (None: not one of ours)."""
    return _STATE_OUTCOMES.get(state)


def exit_params(*, outcome: str, rid: str, test_id: int, timestamp: int) -> dict[str, str]:
    """The parameters of the exit redirect (signed by `signed_url`)."""
    if outcome not in OUTCOMES:
        raise ValueError(f"unknown outcome {outcome!r}")
    return {OUTCOME_PARAM: outcome, RID_PARAM: rid, TEST_PARAM: str(test_id), "ts": str(timestamp)}


def callback_payload(*, partner: str, outcome: str, entry: Mapping[str, object], test_id: int) -> dict[str, object]:
    """The body of a server-to-server report (respondent completion or panel outcome)."""
    if partner == RESPONDENT:
        return {
            "event": "participant.completed",
            "projectId": entry.get("project_id"),
            "screenerResponseId": entry.get("screener_response_id"),
            "testId": test_id,
            "status": outcome,
        }
    return {
        "event": "panel.outcome",
        "panel": entry.get("panel"),
        "rid": entry.get("rid"),
        "testId": test_id,
        "outcome": outcome,
    }
