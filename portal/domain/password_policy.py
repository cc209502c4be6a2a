"""The password rules of the spec, in one place for the live checklist and for the server.

Rules (spec, "Passwords"): surrounding spaces are removed; 12 to 255 characters; at least
one lowercase letter, one uppercase letter, one digit and one special character from
!@#$%^&*(),.?":{}|<>_- ; a passphrase of 30 or more characters does not need the four
character classes. On top of the spec, common passwords are refused (see `is_common`).

Pure: no Reflex, no database. The common-password list is a static data file shipped
with the code (portal/data/common_passwords.txt, made by tools/common_passwords.py).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

MIN_LENGTH = 12
PASSPHRASE_LENGTH = 30
MAX_LENGTH = 255
SPECIAL_CHARACTERS = '!@#$%^&*(),.?":{}|<>_-'

PASSWORD_REQUIRED = "Password is required"
PASSWORD_INVALID = "Password does not meet all requirements"
CONFIRM_INVALID = "Confirm password does not meet all requirements"
PASSWORDS_DONT_MATCH = "Passwords don't match"
# The spec names the server error 'duplicated' but does not show its text.
PASSWORD_DUPLICATED = "The new password must be different from your current password"
DUPLICATED_CODE = "duplicated"

# Form field names, as the spec's PUT /account/reset-password payload names them.
PASSWORD_FIELD = "password"
CONFIRM_FIELD = "confirmPassword"

COMMON_PASSWORDS_FILE = Path(__file__).resolve().parent.parent / "data" / "common_passwords.txt"
# A core shorter than this is too generic to refuse on (e.g. 'abc' from 'abc123').
MIN_CORE_LENGTH = 4


@dataclass(frozen=True)
class Requirement:
    """One line of the checklist: `status` is 'met', 'unmet' or 'waived' (not needed for a passphrase)."""

    key: str
    label: str
    status: str

    @property
    def met(self) -> bool:
        return self.status != "unmet"

    def as_dict(self) -> dict[str, str | bool]:
        return {"key": self.key, "label": self.label, "status": self.status, "met": self.met}


def normalize(password: str | None) -> str:
    """Surrounding spaces (any whitespace) are not part of the password."""
    return (password or "").strip()


def _has(password: str, category: str) -> bool:
    return any(unicodedata.category(ch) == category for ch in password)


def has_lowercase(password: str) -> bool:
    return _has(password, "Ll")


def has_uppercase(password: str) -> bool:
    return _has(password, "Lu")


def has_digit(password: str) -> bool:
    return _has(password, "Nd")


def has_special(password: str) -> bool:
    return any(ch in SPECIAL_CHARACTERS for ch in password)


def is_passphrase(password: str) -> bool:
    return PASSPHRASE_LENGTH <= len(normalize(password)) <= MAX_LENGTH


# --- common passwords ---------------------------------------------------------------------

# Look-alike characters read back as the letters they stand for ('P@ssw0rd' -> 'password').
_LEET = str.maketrans(
    {"@": "a", "4": "a", "3": "e", "1": "i", "!": "i", "|": "i", "0": "o", "$": "s", "5": "s", "7": "t", "+": "t"}
)
_EDGES = re.compile(r"^[^a-z]+|[^a-z]+$")
_NON_LETTERS = re.compile(r"[^a-z]+")


def core(password: str) -> str:
    """The letters a password is built on: lowercased, digits and symbols at both ends dropped,
    look-alikes inside read as letters, anything else inside dropped.

    'P@ssw0rd1234!' -> 'password'; 'Welcome2024!' -> 'welcome'; '1qaz2wsx' -> 'qazwsx'.
    """
    text = _EDGES.sub("", normalize(password).lower())
    return _NON_LETTERS.sub("", text.translate(_LEET))


@functools.cache
def _common() -> tuple[frozenset[str], frozenset[str]]:
    raw: set[str] = set()
    for line in COMMON_PASSWORDS_FILE.read_text(encoding="utf-8").splitlines():
        entry = line.strip().lower()
        if entry and not entry.startswith("#"):
            raw.add(entry)
    cores = {c for c in (core(entry) for entry in raw) if len(c) >= MIN_CORE_LENGTH}
    return frozenset(raw), frozenset(cores)


def is_common(password: str) -> bool:
    """A listed password (case-insensitive), or one whose core is the core of a listed password."""
    text = normalize(password).lower()
    if not text:
        return False
    raw, cores = _common()
    if text in raw:
        return True
    c = core(text)
    return len(c) >= MIN_CORE_LENGTH and c in cores


# --- the checklist and the verdict --------------------------------------------------------

LABELS = {
    "length": f"{MIN_LENGTH} to {MAX_LENGTH} characters",
    "lowercase": "One lowercase letter",
    "uppercase": "One uppercase letter",
    "digit": "One number",
    "special": f"One special character: {SPECIAL_CHARACTERS}",
    "common": "Not a commonly used password",
    "passphrase": (
        f"Or a passphrase of {PASSPHRASE_LENGTH}+ characters (then letters, numbers and symbols are optional)"
    ),
}


def checklist(password: str | None) -> list[Requirement]:
    """The live checklist, in display order. The same items decide `meets_requirements`."""
    text = normalize(password)
    passphrase = is_passphrase(text)

    def status(ok: bool, *, waivable: bool = False) -> str:
        if ok:
            return "met"
        return "waived" if waivable and passphrase else "unmet"

    return [
        Requirement("length", LABELS["length"], status(MIN_LENGTH <= len(text) <= MAX_LENGTH)),
        Requirement("lowercase", LABELS["lowercase"], status(has_lowercase(text), waivable=True)),
        Requirement("uppercase", LABELS["uppercase"], status(has_uppercase(text), waivable=True)),
        Requirement("digit", LABELS["digit"], status(has_digit(text), waivable=True)),
        Requirement("special", LABELS["special"], status(has_special(text), waivable=True)),
        Requirement("common", LABELS["common"], status(bool(text) and not is_common(text))),
        Requirement("passphrase", LABELS["passphrase"], "met" if passphrase else "unmet"),
    ]


def meets_requirements(password: str | None) -> bool:
    """Every rule met (the passphrase line is an alternative, not a rule of its own)."""
    return all(item.met for item in checklist(password) if item.key != "passphrase")


def validate(password: str | None, confirm_password: str | None) -> dict[str, str]:
    """Field errors for the create-new-password form, keyed by PASSWORD_FIELD / CONFIRM_FIELD.

    Per field the first failing check wins: required, then the requirements, then (for the
    confirmation) the match with the new password.
    """
    new, confirm = normalize(password), normalize(confirm_password)
    errors: dict[str, str] = {}
    if not new:
        errors[PASSWORD_FIELD] = PASSWORD_REQUIRED
    elif not meets_requirements(new):
        errors[PASSWORD_FIELD] = PASSWORD_INVALID
    if not confirm:
        errors[CONFIRM_FIELD] = PASSWORD_REQUIRED
    elif not meets_requirements(confirm):
        errors[CONFIRM_FIELD] = CONFIRM_INVALID
    elif new and confirm != new:
        errors[CONFIRM_FIELD] = PASSWORDS_DONT_MATCH
    return errors
