"""Referral rules: code format, who may refer whom, expiry of a referral click, labels.

Pure: no database, no I/O. The service (portal/services/referrals.py) feeds these.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Mapping
from datetime import UTC, datetime
from urllib.parse import urlencode

from portal.domain.table import format_date, format_money

TITLE = "Help to grow the participant community. Earn extra cash."
BONUS_TEXT = "Earn $20 for every person you refer: the reward is paid once they are paid for their first test."
STEPS = (
    ("Share your link", "Send your personal referral link to colleagues and friends who work in B2B."),
    (
        "They sign up and get invites",
        "Your referee signs up with LinkedIn through your link and starts receiving invites to paid tests.",
    ),
    ("You get your reward", "Once your referee is paid for their first test, you earn $20."),
)
NO_REFEREES = "Nobody has signed up through your link yet."

STATUS_SIGNED_UP = "Signed up"
STATUS_REWARD_PENDING = "Reward pending"

# Codes we make: 10 characters from an alphabet without look-alikes (0/O, 1/I/L).
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 10
# Codes we accept (also older hand-made ones such as the demo's DANA2026): letters and digits, 4-32.
CODE_PATTERN = re.compile(r"^[A-Z0-9]{4,32}$")

# Why a referral at sign-up was not recorded (logged; the sign-up itself always goes on).
REFUSED_NO_CODE = "no referral code"
REFUSED_BAD_CODE = "malformed referral code"
REFUSED_UNKNOWN_CODE = "unknown referral code"
REFUSED_EXPIRED = "referral link expired"
REFUSED_SELF = "self-referral"
REFUSED_ALREADY_CLAIMED = "the referee was already referred"
REFUSED_LOOP = "referral loop"
REFUSED_NO_PROGRAM = "no active referral programme"
MEMBER_EXISTS = "Member already exists"


def new_code() -> str:
    """A random referral code (about 49 bits): unguessable enough for a link, short enough to share."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normalize_code(value: object) -> str | None:
    """The code in canonical form (upper case, trimmed), or None when it cannot be a code."""
    if not isinstance(value, str):
        return None
    code = value.strip().upper()
    return code if CODE_PATTERN.match(code) else None


def referral_link(base_url: str, code: str) -> str:
    """{BASE_URL}/sign-up?REFERRALCODE=<code>."""
    return f"{base_url.rstrip('/')}/sign-up?{urlencode({'REFERRALCODE': code})}"


def parse_ttl(value: object) -> datetime | None:
    """RR_WCID_TTL as an aware UTC expiry: Unix seconds, Unix milliseconds, or an ISO 8601 date-time.

    Raises ValueError when the value is present but unreadable.
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    text = str(value).strip()
    if re.fullmatch(r"\d{1,16}(\.\d+)?", text):
        number = float(text)
        if number > 1e11:  # milliseconds
            number /= 1000
        return datetime.fromtimestamp(number, tz=UTC)
    parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def is_expired(ttl: object, now: datetime) -> bool:
    """An unreadable TTL counts as expired: the link cannot prove it is still valid."""
    try:
        expiry = parse_ttl(ttl)
    except (ValueError, OverflowError, OSError):
        return True
    return expiry is not None and now >= expiry


def creates_loop(referrer_id: int, referee_id: int, referrer_of: Mapping[int, int]) -> bool:
    """Whether crediting referrer -> referee closes a cycle.

    `referrer_of` maps an account to the account that referred it. Walking up from the
    referrer must never reach the referee (A->B->A, A->B->C->A, ...).
    """
    seen: set[int] = set()
    current: int | None = referrer_id
    while current is not None and current not in seen:
        if current == referee_id:
            return True
        seen.add(current)
        current = referrer_of.get(current)
    return False


def refusal(
    *,
    referrer_id: int | None,
    referee_id: int,
    referee_already_referred_by: int | None,
    referrer_of: Mapping[int, int],
    expired: bool,
) -> str | None:
    """The reason a referral may not be recorded, or None when it may (in the order checked)."""
    if referrer_id is None:
        return REFUSED_UNKNOWN_CODE
    if expired:
        return REFUSED_EXPIRED
    if referrer_id == referee_id:
        return REFUSED_SELF
    if referee_already_referred_by is not None and referee_already_referred_by != referrer_id:
        return REFUSED_ALREADY_CLAIMED
    if creates_loop(referrer_id, referee_id, referrer_of):
        return REFUSED_LOOP
    return None


def referee_status(*, bonus_cents: int | None, bonus_paid: bool, has_reward: bool, bonus_earned: bool = False) -> str:
    """'Signed up' -> 'Reward pending' (a test done, not paid yet) -> 'Bonus on its way $20' (the referee was paid:
    the referrer's bonus reward is being paid) -> 'Reward paid $20' (the bonus reward is paid)."""
    if bonus_paid:
        return f"Reward paid {format_money(bonus_cents or 0)}"
    if bonus_earned:
        return f"Bonus on its way {format_money(bonus_cents or 0)}"
    if has_reward:
        return STATUS_REWARD_PENDING
    return STATUS_SIGNED_UP


def joined_label(value: datetime | None) -> str:
    return format_date(value)


def total_earned_label(cents: int) -> str:
    return format_money(cents)


def embeddable_widget_url(value: str | None) -> str:
    """The programme's widget address if it may be embedded (https, or http for local use), else ''."""
    text = (value or "").strip()
    return text if re.match(r"^https?://[^\s/]+", text) else ""
