"""Two-factor sign-in with an authenticator app (issue 40, item 1): codes by RFC 6238 (TOTP, through `pyotp`), the
recovery codes, and the wording. Pure: the clock and the secret are passed in."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from datetime import datetime

import pyotp

DIGITS = 6
PERIOD = 30  # seconds a code lasts
# A code of the step before or after the server's also counts (a phone's clock a little off).
VALID_WINDOW = 1
RECOVERY_CODES = 10
RECOVERY_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"  # no 0/o, 1/l/i: read off a sheet of paper
RECOVERY_GROUP = 5
# Wrong codes before a sign-in's challenge dies (sign in with the password again).
MAX_TRIES = 5
CHALLENGE_MINUTES = 10

PATH = "/two-factor"
REQUIRED_PARAM = "two_factor"  # /account?two_factor=1: a staff member sent to turn it on
COOKIE = "portal_2fa"

TITLE = "Two-factor sign-in"
HEADING = "Two-factor sign-in"
OFF_TEXT = (
    "Protect your account with a second step at sign-in: a 6-digit code from an authenticator app on your phone "
    "(Google Authenticator, Microsoft Authenticator, 1Password, Authy and others)."
)
ON_TEXT = "On. At sign-in, after your password or LinkedIn or Google, we ask for a code from your authenticator app."
TURN_ON = "Turn on two-factor sign-in"
SCAN = "Scan this QR code with your authenticator app, or type the key below into it. Then enter the code it shows."
KEY_LABEL = "Key"
CODE_LABEL = "Code from your app"
CONFIRM = "Confirm"
CODES_TITLE = "Your recovery codes"
CODES_TEXT = "Each code signs you in once if you lose your phone. Keep them somewhere safe: they are shown only now."
CODES_DONE = "I have saved my recovery codes"
CODES_LEFT = "{count} of 10 recovery codes left."
TURN_OFF = "Turn off two-factor sign-in"
TURN_OFF_CODE_LABEL = "Code from your app or a recovery code"
TURNED_ON = "Two-factor sign-in is on."
TURNED_OFF = "Two-factor sign-in is off."
STAFF_KEEP = "Staff accounts keep two-factor sign-in on."
STAFF_REQUIRED = "Staff accounts need two-factor sign-in. Turn it on here to open the admin."

CHALLENGE_TITLE = "Enter your sign-in code"
CHALLENGE_TEXT = "Open your authenticator app and enter the 6-digit code it shows for this account."
CHALLENGE_RECOVERY = "Lost your phone? Enter one of your recovery codes instead."
CHALLENGE_BUTTON = "Sign in"
CODE_REQUIRED = "Enter the code"
CODE_WRONG = "That code is not right. Enter the newest code from your app, or a recovery code."
CHALLENGE_EXPIRED = "Your sign-in took too long or had too many wrong codes. Please sign in again."
SETUP_EXPIRED = "Start again: press 'Turn on two-factor sign-in'."

_SPACES = re.compile(r"[\s-]+")


def normalize(code: object) -> str:
    """What was typed, without spaces or hyphens, lowercased; anything but text is empty."""
    if not isinstance(code, str):
        return ""
    return _SPACES.sub("", code.strip())[:64].lower()


def new_secret() -> str:
    return pyotp.random_base32()  # 32 base32 characters: 160 bits, RFC 4226's recommended length


def provisioning_uri(secret: str, *, account_name: str, issuer: str) -> str:
    """The otpauth:// address the QR code holds."""
    return pyotp.TOTP(secret, digits=DIGITS, interval=PERIOD).provisioning_uri(name=account_name, issuer_name=issuer)


def step_of(moment: datetime) -> int:
    return int(moment.timestamp()) // PERIOD


def matching_step(secret: str, code: object, now: datetime) -> int | None:
    """The step whose code this is (this step, or one before or after), or None."""
    typed = normalize(code)
    if len(typed) != DIGITS or not typed.isdigit():
        return None
    totp = pyotp.TOTP(secret, digits=DIGITS, interval=PERIOD)
    current = step_of(now)
    for step in range(current - VALID_WINDOW, current + VALID_WINDOW + 1):
        if hmac.compare_digest(totp.generate_otp(step), typed):
            return step
    return None


def new_recovery_codes() -> list[str]:
    """Ten codes like 'k7pqx-3mzrt' (about 49 bits each)."""

    def one() -> str:
        chars = "".join(secrets.choice(RECOVERY_ALPHABET) for _ in range(2 * RECOVERY_GROUP))
        return f"{chars[:RECOVERY_GROUP]}-{chars[RECOVERY_GROUP:]}"

    return [one() for _ in range(RECOVERY_CODES)]


def recovery_hash(code: object) -> str:
    return hashlib.sha256(normalize(code).encode()).hexdigest()


def looks_like_recovery_code(code: object) -> bool:
    typed = normalize(code)
    return len(typed) == 2 * RECOVERY_GROUP and all(c in RECOVERY_ALPHABET for c in typed)
