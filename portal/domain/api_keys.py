"""The REST API's keys (issue 39): their scopes, what each scope lets a key do, their form and their checks.

A key acts for the super-admin who created it, and only within its scopes: a route names the scope it needs, and
the staff service behind it checks the permission again against the scopes (`permits`), so a key never does more
than both its creator's role and its scopes allow.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable

from portal.domain.staff import roles

# Scopes, each with its label and the staff permissions it lends a key.
SCOPES: dict[str, tuple[str, frozenset[str]]] = {
    "tests:read": ("Read tests, their versions and definitions", frozenset({roles.VIEW})),
    "tests:write": (
        "Create, update, launch, schedule, stop and duplicate tests",
        frozenset({roles.VIEW, roles.MANAGE_TESTS}),
    ),
    "invites:write": ("List, send and cancel invites", frozenset({roles.VIEW, roles.INVITE})),
    "reviews:read": ("Read reviews with their answers", frozenset({roles.VIEW, roles.EXPORT})),
    "reviews:write": ("Approve, exclude and reject reviews", frozenset({roles.VIEW, roles.DECIDE_REVIEWS})),
    "rewards:read": ("Read rewards", frozenset({roles.VIEW})),
    "rewards:write": ("Mark rewards paid, failed or canceled", frozenset({roles.VIEW, roles.PAY})),
    "participants:read": ("Search and read participants", frozenset({roles.VIEW})),
    "participants:write": ("Verify and unverify participants", frozenset({roles.VIEW, roles.VERIFY})),
    "results:read": ("Read a test's results", frozenset({roles.VIEW, roles.EXPORT})),
    "webhooks:write": ("Subscribe to webhooks", frozenset()),
}
SCOPE_LABELS: dict[str, str] = {scope: label for scope, (label, _) in SCOPES.items()}

KEY_PREFIX = "pk_"  # every key starts so (a secret scanner can spot one in a log or a repository)
PREFIX_SHOWN = 11  # 'pk_' and the first 8 characters: what the list shows to tell keys apart
NAME_MAX = 100
DEFAULT_RATE_PER_MINUTE = 600
RATE_MIN, RATE_MAX = 1, 100_000
LAST_USE_EVERY_SECONDS = 60  # `last_used_at` is written at most once a minute per key

NAME_REQUIRED = "Give the key a name."
NAME_TOO_LONG = f"The name can have at most {NAME_MAX} characters."
SCOPES_REQUIRED = "Choose at least one scope."
UNKNOWN_SCOPE = "Unknown scope: {scope}."
RATE_INVALID = f"The rate limit is a whole number of requests a minute from {RATE_MIN} to {RATE_MAX:,}."
KEY_NOT_FOUND = "That API key does not exist."
ALREADY_REVOKED = "That key was already revoked."

# What the API answers a caller without a working key.
MISSING_KEY = "Send an API key in the Authorization header: Bearer <key>."
BAD_KEY = "This API key is not valid or was revoked."
OUT_OF_SCOPE = "This API key does not have the scope {scope}."
RATE_LIMITED = "Too many requests with this API key: wait {seconds} seconds."


def new_key() -> str:
    """A new key: 'pk_' and 256 random bits (shown once; only its hash is kept)."""
    return KEY_PREFIX + secrets.token_urlsafe(32)


def key_hash(key: str) -> str:
    """What is stored and looked up: SHA-256 of the key (a 256-bit random key needs no slow hash)."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def shown_prefix(key: str) -> str:
    return key[:PREFIX_SHOWN]


def looks_like_key(value: object) -> bool:
    return isinstance(value, str) and value.startswith(KEY_PREFIX) and 20 <= len(value) <= 200


def clean_name(value: object) -> tuple[str, str | None]:
    """(the name, None) or ('', the message)."""
    name = " ".join(value.split()) if isinstance(value, str) else ""
    if not name:
        return "", NAME_REQUIRED
    if len(name) > NAME_MAX:
        return "", NAME_TOO_LONG
    return name, None


def clean_scopes(value: object) -> tuple[list[str], str | None]:
    """(the scopes in the table's order, None) or ([], the message)."""
    chosen = [value] if isinstance(value, str) else list(value) if isinstance(value, (list, tuple, set)) else []
    for scope in chosen:
        if scope not in SCOPES:
            return [], UNKNOWN_SCOPE.format(scope=str(scope)[:60])
    if not chosen:
        return [], SCOPES_REQUIRED
    return [scope for scope in SCOPES if scope in chosen], None


def clean_rate(value: object) -> tuple[int, str | None]:
    if value is None or value == "":
        return DEFAULT_RATE_PER_MINUTE, None
    try:
        rate = int(str(value).strip())
    except ValueError:
        return 0, RATE_INVALID
    if not RATE_MIN <= rate <= RATE_MAX:
        return 0, RATE_INVALID
    return rate, None


def permits(scopes: Iterable[str], permission: str) -> bool:
    """Whether any of the key's scopes lends it a staff permission."""
    return any(permission in SCOPES[scope][1] for scope in scopes if scope in SCOPES)
