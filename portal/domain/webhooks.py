"""Webhooks (issue 39, item 4): the events an API key may subscribe to, the retry schedule of a delivery and when
it is given up, the form of a subscription's URL and secret, and the delivery log's statuses.

Deliveries are signed by the Standard Webhooks scheme (https://www.standardwebhooks.com): headers webhook-id (the
event's id, the receiver's deduplication key), webhook-timestamp and webhook-signature. The schedule is the one
the Standard Webhooks specification suggests: attempts immediately, then after 5 seconds, 5 minutes, 30 minutes,
2 hours, 5 hours, 10 hours, 10 hours and 10 hours (the last one some 37.5 hours after the event), then the
delivery is given up; staff may replay it from /admin/webhooks.
"""

from __future__ import annotations

import base64
import ipaddress
import secrets
from datetime import timedelta
from urllib.parse import urlsplit

# The events, in the order the API lists them, with what each means.
REVIEW_SUBMITTED = "review.submitted"
REVIEW_DECIDED = "review.decided"
REWARD_PAID = "reward.paid"
REWARD_FAILED = "reward.failed"
TEST_FULL = "test.full"
PROBLEM_REPORTED = "problem.reported"
EVENTS: dict[str, str] = {
    REVIEW_SUBMITTED: "A participant submitted a review",
    REVIEW_DECIDED: "A review was approved, excluded or rejected",
    REWARD_PAID: "A reward was paid",
    REWARD_FAILED: "A reward's payout failed",
    TEST_FULL: "A test reached its participant limit",
    PROBLEM_REPORTED: "A participant reported a problem with a test",
}

# Delay before each attempt, the first one included (Standard Webhooks' suggested schedule).
SCHEDULE: tuple[timedelta, ...] = (
    timedelta(0),
    timedelta(seconds=5),
    timedelta(minutes=5),
    timedelta(minutes=30),
    timedelta(hours=2),
    timedelta(hours=5),
    timedelta(hours=10),
    timedelta(hours=10),
    timedelta(hours=10),
)
MAX_ATTEMPTS = len(SCHEDULE)
TIMEOUT_SECONDS = 10.0  # one attempt: connect, send and read the answer
LEASE = timedelta(minutes=2)  # a claimed delivery is another worker's again after this (far above one attempt)
ERROR_KEPT = 1000

EVENT_ID_PREFIX = "msg_"
SECRET_PREFIX = "whsec_"
SECRET_BYTES = 32
URL_MAX = 2000
SUBSCRIPTIONS_PER_KEY = 20

URL_REQUIRED = "Give the URL the events are posted to."
URL_TOO_LONG = f"The URL can have at most {URL_MAX:,} characters."
URL_INVALID = "The URL is not a valid web address: use https://host/path."
URL_NOT_HTTPS = "The URL must start with https://."
URL_CREDENTIALS = "The URL may not hold a user name or password; authenticate deliveries by their signature."
URL_PRIVATE = "The URL must name a public host, not this machine or a private network."
EVENTS_REQUIRED = "Choose at least one event."
UNKNOWN_EVENT = "Unknown event: {event}."
TOO_MANY = f"A key can have at most {SUBSCRIPTIONS_PER_KEY} subscriptions: remove one first."
SUBSCRIPTION_NOT_FOUND = "That subscription does not exist."
NO_WEBHOOK_KEY = "Webhooks are subscribed with an API key that has the scope webhooks:write."
DELIVERY_NOT_FOUND = "This delivery is not in the log."
BEING_SENT = "This delivery is being sent right now: wait a moment and look again."
SUBSCRIPTION_GONE = "The subscription was removed or its API key revoked."

# A delivery's status in the log.
PENDING, RETRYING, DELIVERED, FAILED = "pending", "retrying", "delivered", "failed"
STATUSES: tuple[str, ...] = (PENDING, RETRYING, DELIVERED, FAILED)
STATUS_LABELS: dict[str, str] = {
    PENDING: "Pending",
    RETRYING: "Retrying",
    DELIVERED: "Delivered",
    FAILED: "Given up",
}


def next_delay(attempts_made: int) -> timedelta | None:
    """How long after a failed attempt the next one is made, `attempts_made` attempts having failed; None: give up
    (the schedule is spent)."""
    if attempts_made < 0:
        return SCHEDULE[0]
    return SCHEDULE[attempts_made] if attempts_made < MAX_ATTEMPTS else None


def schedule_span() -> timedelta:
    """From the event to the last attempt."""
    return sum(SCHEDULE, timedelta(0))


def status_of(*, delivered: bool, given_up: bool, attempts: int) -> str:
    if delivered:
        return DELIVERED
    if given_up:
        return FAILED
    return RETRYING if attempts > 0 else PENDING


def new_event_id() -> str:
    """A Standard Webhooks message id: 'msg_' and 128 random bits."""
    return EVENT_ID_PREFIX + secrets.token_hex(16)


def new_secret() -> str:
    """A subscription's signing secret as Standard Webhooks writes it: 'whsec_' and base64 of 256 random bits."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


def _is_local_host(host: str) -> bool:
    if host == "localhost" or host.endswith(".localhost") or host.endswith(".local") or host.endswith(".internal"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return "." not in host  # a bare name ('intranet') resolves inside the network
    return not address.is_global


def clean_url(value: object, *, local: bool = False) -> tuple[str, str | None]:
    """(the URL, None) or ('', the message). `local` (the portal itself runs on a loopback BASE_URL: development and
    tests) also allows http:// and loopback hosts; otherwise only https:// to a public host (no deliveries into the
    portal's own network)."""
    url = value.strip() if isinstance(value, str) else ""
    if not url:
        return "", URL_REQUIRED
    if len(url) > URL_MAX:
        return "", URL_TOO_LONG
    if any(ch.isspace() or ord(ch) < 32 for ch in url):
        return "", URL_INVALID
    try:
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
        _ = parts.port  # a port that is not a number raises here
    except ValueError:
        return "", URL_INVALID
    if parts.scheme not in ("https", "http") or not host:
        return "", URL_INVALID
    if parts.username is not None or parts.password is not None:
        return "", URL_CREDENTIALS
    loopback = _is_loopback(host)
    if parts.scheme == "http" and not (local and loopback):
        return "", URL_NOT_HTTPS
    if _is_local_host(host) and not (local and loopback):
        return "", URL_PRIVATE
    return url, None


RESOLVED_PRIVATE = "The URL's host resolves to this machine or a private network: not sent."


def resolved_problem(addresses: list[str]) -> str | None:
    """What the addresses a host resolves to at sending time say (a public name may be pointed at a private address
    after it was subscribed): the message when any of them is not public, or when there is none."""
    try:
        if addresses and all(ipaddress.ip_address(a.split("%")[0]).is_global for a in addresses):
            return None
    except ValueError:
        pass
    return RESOLVED_PRIVATE


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def clean_events(value: object) -> tuple[list[str], str | None]:
    """(the events in the table's order, None) or ([], the message)."""
    chosen = [value] if isinstance(value, str) else list(value) if isinstance(value, (list, tuple, set)) else []
    for event in chosen:
        if event not in EVENTS:
            return [], UNKNOWN_EVENT.format(event=str(event)[:60])
    if not chosen:
        return [], EVENTS_REQUIRED
    return [event for event in EVENTS if event in chosen], None
