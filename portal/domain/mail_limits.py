"""How often someone can make the portal send an e-mail (issue 12). Pure: no database, no clock.

Limited are the messages a person can ask for again and again: the verification of the personal
and of the work e-mail (Resend, the verify-account page, and a changed address in the sign-up or
the profile) and the password-reset link. A verification e-mail needs, for its account and its
target address:

- per account and kind: one per cooldown (60 s) and five an hour;
- per address and kind: one per cooldown;
- per address, both verification kinds together: five an hour.

A password reset is asked for by address, by anyone: it needs one per cooldown per address,
counted whether or not the address belongs to an account, next to the reset throttle of
`portal.services.password_reset` (5 requests an hour per address, 20 per client address). So a
refusal looks the same for a known and an unknown address, and resets asked by a stranger never
use up the owner's verification e-mails.
"""

from __future__ import annotations

import math

from portal.domain.password_reset import PURPOSE as RESET_PASSWORD
from portal.domain.throttling import Limit

ANY_VERIFICATION = "verify-any"  # the per-address hourly count of both verification kinds

COOLDOWN_SECONDS = 60  # default of MAIL_COOLDOWN_SECONDS
MAX_PER_ADDRESS_PER_HOUR = 5  # default of MAIL_MAX_PER_ADDRESS_PER_HOUR
MAX_PER_ACCOUNT_PER_HOUR = 5  # per account and kind
HOUR_SECONDS = 3600

WAIT_MESSAGE = "Please wait {wait} before asking for another email."


def account_key(account_id: int, kind: str) -> str:
    return f"mail:{kind}:account:{account_id}"


def address_key(address: str, kind: str) -> str:
    return f"mail:{kind}:to:{address}"


def verification_limits(
    *,
    account_id: int,
    kind: str,
    address: str,
    cooldown_seconds: int = COOLDOWN_SECONDS,
    max_per_address_per_hour: int = MAX_PER_ADDRESS_PER_HOUR,
) -> list[Limit]:
    """The limits a verification e-mail (`kind` verify-email or verify-work-email) to `address` must pass."""
    mine = account_key(account_id, kind)
    return [
        Limit(mine, 1, cooldown_seconds),
        Limit(mine, MAX_PER_ACCOUNT_PER_HOUR, HOUR_SECONDS),
        Limit(address_key(address, kind), 1, cooldown_seconds),
        Limit(address_key(address, ANY_VERIFICATION), max_per_address_per_hour, HOUR_SECONDS),
    ]


def reset_limits(*, address: str, cooldown_seconds: int = COOLDOWN_SECONDS) -> list[Limit]:
    """The limits of a forgot-password request for `address`, known or not."""
    return [Limit(address_key(address, RESET_PASSWORD), 1, cooldown_seconds)]


def keys_to_record(limits: list[Limit]) -> list[str]:
    """One event per distinct key when the message is sent."""
    return list(dict.fromkeys(rule.key for rule in limits))


def wait_text(seconds: int) -> str:
    """'1 second', '45 seconds', '2 minutes' (minutes from two minutes on, rounded up)."""
    seconds = max(1, math.ceil(seconds))
    if seconds < 120:
        return f"{seconds} second{'s' if seconds != 1 else ''}"
    return f"{math.ceil(seconds / 60)} minutes"


def wait_message(seconds: int) -> str:
    """'Please wait 45 seconds before asking for another email.'"""
    return WAIT_MESSAGE.format(wait=wait_text(seconds))
