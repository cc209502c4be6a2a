"""The work e-mail rule of the onboarding (spec section 5): what the server answers to a check.

A work e-mail is required, must be a syntactically valid address (email-validator, no DNS
look-up) and must not belong to a free-mail provider (gmail.com, outlook.com, ...) or a
disposable (throw-away) domain. The domain lists are data files in `portal/data/`; a subdomain
of a listed domain counts as listed (`eu.mailinator.com`). Whether another account already uses
the address needs the database: `portal/services/work_email.py` adds that.

The browser asks only when the typed value could be an address (`worth_checking`: at least 5
characters with '@' and '.'); the server checks every value it is given.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from email_validator import EmailNotValidError, validate_email

from portal.domain.accounts import normalize_email

DATA_DIR = Path(__file__).resolve().parent.parent / "data"
FREE_DOMAINS_FILE = DATA_DIR / "free_email_domains.txt"
DISPOSABLE_DOMAINS_FILE = DATA_DIR / "disposable_email_domains.txt"

# Spec section 9: the browser checks a work e-mail only from 5 characters with '@' and '.'.
CHECK_MIN_LENGTH = 5
CHECK_DEBOUNCE_MS = 500
SUBMIT_WAIT_MS = 50
# Spec section 9: the personal e-mail's duplicate check runs 800 ms after typing stops.
EMAIL_DUPLICATE_DELAY_MS = 800

# Reason codes (WorkEmailCheck.error) and the texts shown (WorkEmailCheck.message).
REQUIRED = "required"
INVALID = "invalid"
FREE_MAIL = "free_mail"
DISPOSABLE = "disposable"
TAKEN = "taken"

# The spec writes the required message both as 'Work email is required' (section 5's list) and
# 'Work Email is required' (the message a check must not overwrite); they are one message.
MESSAGE_REQUIRED = "Work email is required"
MESSAGE_INVALID = "Please enter a valid email address"
MESSAGE_FREE_MAIL = "Please use your work email. Addresses from free email providers such as {domain} are not accepted."
MESSAGE_DISPOSABLE = "Disposable email addresses are not accepted. Please use your work email."
MESSAGE_TAKEN = "Email already exists"
MESSAGE_MAX = 320


@dataclass(frozen=True)
class WorkEmailCheck:
    """The answer to 'is this a usable work e-mail?'.

    `error` is a reason code (REQUIRED, INVALID, FREE_MAIL, DISPOSABLE, TAKEN) or None,
    `message` the text to show under the field, `value` the address that was checked
    (normalised: trimmed, lowercased), so a caller can drop an answer for a value the field
    no longer holds.
    """

    valid: bool
    error: str | None = None
    message: str | None = None
    value: str = ""


def _read_domains(path: Path) -> frozenset[str]:
    domains = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip().lower()
        if line:
            domains.add(line)
    return frozenset(domains)


@lru_cache(maxsize=1)
def free_domains() -> frozenset[str]:
    return _read_domains(FREE_DOMAINS_FILE)


@lru_cache(maxsize=1)
def disposable_domains() -> frozenset[str]:
    return _read_domains(DISPOSABLE_DOMAINS_FILE)


def _listed(domain: str, listed: frozenset[str]) -> str | None:
    """The listed domain that `domain` is or lies under (`a.b.example.com` -> `example.com`)."""
    labels = domain.split(".")
    for start in range(len(labels) - 1):
        candidate = ".".join(labels[start:])
        if candidate in listed:
            return candidate
    return None


def worth_checking(value: str | None) -> bool:
    """The browser's condition for asking the server: at least 5 characters with '@' and '.'."""
    text = (value or "").strip()
    return len(text) >= CHECK_MIN_LENGTH and "@" in text and "." in text


def domain_kind(domain: str) -> str | None:
    """DISPOSABLE, FREE_MAIL or None for an ASCII (punycode) domain."""
    domain = domain.strip().lower().rstrip(".")
    if _listed(domain, disposable_domains()):
        return DISPOSABLE
    if _listed(domain, free_domains()):
        return FREE_MAIL
    return None


def check_syntax_and_domain(value: str | None) -> WorkEmailCheck:
    """Every part of the rule that needs no database: required, syntax, free-mail, disposable."""
    text = normalize_email(value if isinstance(value, str) else "")
    if not text:
        return WorkEmailCheck(valid=False, error=REQUIRED, message=MESSAGE_REQUIRED, value="")
    if len(text) > MESSAGE_MAX:
        return WorkEmailCheck(valid=False, error=INVALID, message=MESSAGE_INVALID, value=text)
    try:
        parsed = validate_email(text, check_deliverability=False)
    except EmailNotValidError:
        return WorkEmailCheck(valid=False, error=INVALID, message=MESSAGE_INVALID, value=text)
    kind = domain_kind(parsed.ascii_domain)
    if kind == DISPOSABLE:
        return WorkEmailCheck(valid=False, error=DISPOSABLE, message=MESSAGE_DISPOSABLE, value=text)
    if kind == FREE_MAIL:
        return WorkEmailCheck(
            valid=False, error=FREE_MAIL, message=MESSAGE_FREE_MAIL.format(domain=parsed.domain), value=text
        )
    return WorkEmailCheck(valid=True, value=text)


def taken(value: str) -> WorkEmailCheck:
    return WorkEmailCheck(valid=False, error=TAKEN, message=MESSAGE_TAKEN, value=normalize_email(value))


def shown_message(check: WorkEmailCheck) -> str:
    """What the field shows for an answer: its message, else its error, else nothing."""
    if check.valid:
        return ""
    return check.message or check.error or MESSAGE_INVALID


def message_after_check(current_error: str, check: WorkEmailCheck) -> str:
    """The field's message once an answer arrives: a required error stays (spec section 5)."""
    if current_error == MESSAGE_REQUIRED:
        return current_error
    return shown_message(check)
