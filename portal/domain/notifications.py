"""What the portal tells a participant by e-mail: one list of kinds, every map derived from it (issue 38).

Each kind has its label on the notifications page and whether it can be turned off. A notification is sent at
most once per person and event: its subject key (e.g. 'invite:<id>') names the event, and the table's unique
(account, kind, subject key) holds it (portal/services/notifications.py).
"""

from __future__ import annotations

from dataclasses import dataclass

INVITE_REMINDER_HOURS_DEFAULT = 4


@dataclass(frozen=True)
class Kind:
    key: str
    label: str
    optional: bool = True  # can be turned off on the notifications page


KINDS: tuple[Kind, ...] = (
    Kind("invite", "A new paid test is waiting for me"),
    Kind("invite-reminder", "A reminder before an invite I have not started expires"),
    Kind("verified", "My account was verified"),
    Kind("review-rejected", "My answers to a test were rejected, and why"),
    Kind("review-approved", "My answers to a test were approved"),
    Kind("reward-sent", "A reward was sent to me"),
    Kind("reward-failed", "A reward could not be sent"),
    Kind("message", "A new message from staff"),
)

KEYS: tuple[str, ...] = tuple(k.key for k in KINDS)
LABELS: dict[str, str] = {k.key: k.label for k in KINDS}
OPTIONAL: frozenset[str] = frozenset(k.key for k in KINDS if k.optional)
BY_KEY: dict[str, Kind] = {k.key: k for k in KINDS}

PAGE_PATH = "/notifications"
UNSUBSCRIBE_PATH = "/unsubscribe"  # + "/<token>": the one-click link (RFC 8058)
TOKEN_SALT = "notifications.unsubscribe"


def is_kind(value: object) -> bool:
    return isinstance(value, str) and value in BY_KEY


def can_turn_off(value: object) -> bool:
    return isinstance(value, str) and value in OPTIONAL


def subject_key(what: str, ident: int | str) -> str:
    """The event a notification is about, e.g. subject_key('invite', 12) == 'invite:12'."""
    return f"{what}:{ident}"
