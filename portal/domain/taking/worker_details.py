"""Worker / respondent details: the survey's end step ("Personal info"), its fields and rules.

Pure: no Reflex, no database. Spec (test-taking) sections 3 (the entity), 4 (worker details
loading, form wizard state), 5 (worker field enablement, personal info filled) and 6 (the
thank-you variants). The single-field rules are the profile form's (portal.domain.profile_rules:
LinkedIn normalisation, phone and e-mail syntax, countries and states via geography): one rule,
one place. A state uses these functions for the live messages; the submission service calls
`validate` and `for_submission` again on what arrives.

Who sees what (`audience_kind`, `enabled_fields`):
- crowd-work (panel 'mturk'): workerId, firstName, state;
- a custom, qualification-based audience: firstName, jobTitle, email, linkedin;
- everybody else: firstName, lastName (ours: the spec gives lastName a helper text, so it is
  shown somewhere, and only this branch leaves it open), country, state, email, paymentEmail,
  phoneNumber, and linkedin unless the worker already has one.
Crowd-work wins over qualification-based when a test is both.

Choices where the spec is silent (docs/decisions.md, "Worker details (issue 5)"): the phone is
optional (its helper text says 'not obligatory') and checked only when filled; a state is
required only when the country has states; e-mails are lowercased; a worker ID is 1-64 letters,
digits, '_' or '-'.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from portal.domain import geography
from portal.domain import profile_rules as rules
from portal.domain.accounts import normalize_email
from portal.domain.staff.reviews import CROWD_WORK_BUSINESS_DAYS

FIELDS: tuple[str, ...] = (
    "workerId",
    "firstName",
    "lastName",
    "country",
    "state",
    "jobTitle",
    "email",
    "paymentEmail",
    "linkedin",
    "phoneNumber",
)

CROWD_WORK_PANEL = "mturk"  # reference_data.PANELS: the crowd-work panel

# Audience kinds (what decides the fields and the thank-you page).
CROWD_WORK = "crowd-work"
QUALIFICATION = "qualification"
STANDARD = "standard"

# Spec section 4: the lookup runs 500 ms after typing stops; its result is applied 1 s later.
LOOKUP_DEBOUNCE_MS = 500
LOOKUP_APPLY_DELAY_MS = 1000

# The brand in the e-mail helper text: the spec does not name it; ours is the settings default
# (settings.brand_name, BRAND_NAME). A state passes settings.brand_name to `email_help`.
BRAND = "Participants Portal"

# --- spec strings -------------------------------------------------------------------------------
LAST_NAME_HELP = rules.LAST_NAME_HELPER  # 'You can use an alias if you wish.'
PHONE_HELP = rules.PHONE_HELPER  # 'Never miss a test invite, get notifications to your phone (not obligatory)'
EMAIL_HELP_TEMPLATE = "If you don't have a {brand} account use the email where you received the test invite."
EMAIL_HELP = EMAIL_HELP_TEMPLATE.format(brand=BRAND)
CLOSE_WINDOW = "Close this window"
BACK_TO_HOMEPAGE = "Back to homepage"

# --- ours, where the spec shows no text ----------------------------------------------------------
LABELS: dict[str, str] = {
    "workerId": "Worker ID",
    "firstName": "First name",
    "lastName": "Last name",
    "country": "Country",
    "state": "State",
    "jobTitle": "Job title",
    "email": "Email",
    "paymentEmail": "Payment email",
    "linkedin": "LinkedIn profile",
    "phoneNumber": "Phone number",
}
DIFFERENT_PAYMENT_EMAIL_LABEL = "I want to be paid to a different email"
SIGN_UP_PROMO_TITLE = "Want more paid tests like this one?"
SIGN_UP_PROMO_TEXT = "Create a free participant account and we will invite you to tests that match your profile."
SIGN_UP_PROMO_BUTTON = "Sign up"
# When a crowd-work respondent is paid (issue 40; the rule's business days, portal/domain/staff/reviews.py).
CROWD_WORK_PAYMENT = (
    f"Your payment comes within {CROWD_WORK_BUSINESS_DAYS[0]} to {CROWD_WORK_BUSINESS_DAYS[1]} business days of "
    "approval, through the crowd-work platform."
)
CLOSE_WINDOW_REFUSED = (
    "Your browser keeps this window open. Your answers are submitted: close this tab or window yourself."
)

REQUIRED = "{label} is required"  # 'First name is required', 'Email is required' as in the profile
BAD_VALUE = "Please enter text"
UNREADABLE = "The details could not be read. Please reload the page."
WORKER_ID_INVALID = "Please enter your worker ID (letters and digits)"
EMAIL_INVALID = rules.EMAIL_INVALID
PHONE_INVALID = rules.PHONE_INVALID
LINKEDIN_INVALID = rules.LINKEDIN_INVALID
COUNTRY_UNKNOWN = rules.COUNTRY_UNKNOWN
STATE_UNKNOWN = rules.STATE_UNKNOWN
STATE_NONE = "The selected country has no states: leave this empty"
TOO_LONG = rules.TOO_LONG

WORKER_ID_MAX = 64
MAX_LENGTHS: dict[str, int] = {
    "workerId": WORKER_ID_MAX,
    "firstName": rules.NAME_MAX,
    "lastName": rules.NAME_MAX,
    "country": 8,
    "state": 16,
    "jobTitle": rules.TEXT_MAX,
    "email": rules.EMAIL_MAX,
    "paymentEmail": rules.EMAIL_MAX,
    "linkedin": rules.LINKEDIN_MAX,
    "phoneNumber": 40,
}
OPTIONAL_FIELDS: frozenset[str] = frozenset({"phoneNumber"})  # 'not obligatory'

_WORKER_ID = re.compile(r"^[A-Za-z0-9_-]+$")
_EMAILS = ("email", "paymentEmail")


# --- who sees what ----------------------------------------------------------------------------------


def audience_kind(*, panel: str, qualification_based: bool) -> str:
    """CROWD_WORK for the crowd-work panel, QUALIFICATION for a qualification-based audience, else STANDARD."""
    if panel == CROWD_WORK_PANEL:
        return CROWD_WORK
    if qualification_based:
        return QUALIFICATION
    return STANDARD


def enabled_fields(*, panel: str, qualification_based: bool, has_linkedin: bool) -> tuple[str, ...]:
    """The fields of the personal-info step, in FIELDS order (spec section 5, 'Worker field enablement')."""
    kind = audience_kind(panel=panel, qualification_based=qualification_based)
    if kind == CROWD_WORK:
        shown = {"workerId", "firstName", "state"}
    elif kind == QUALIFICATION:
        shown = {"firstName", "jobTitle", "email", "linkedin"}
    else:
        shown = {"firstName", "lastName", "country", "state", "email", "paymentEmail", "phoneNumber"}
        if not has_linkedin:
            shown.add("linkedin")
    return tuple(f for f in FIELDS if f in shown)


def personal_info_active(enabled: Iterable[str]) -> bool:
    """The personal-info step is part of the wizard when at least one field is enabled."""
    return any(f in FIELDS for f in enabled)


def email_help(brand: str = BRAND) -> str:
    return EMAIL_HELP_TEMPLATE.format(brand=brand)


def help_text(field: str, *, brand: str = BRAND) -> str:
    """The helper text under a field ('' for none)."""
    if field == "lastName":
        return LAST_NAME_HELP
    if field == "phoneNumber":
        return PHONE_HELP
    if field == "email":
        return email_help(brand)
    return ""


def thank_you_action(*, panel: str, qualification_based: bool) -> str:
    """The thank-you page's ending (spec section 6): CLOSE_WINDOW for crowd-work, the sign-up promo
    (SIGN_UP_PROMO_BUTTON) for a qualification-based audience, else BACK_TO_HOMEPAGE."""
    kind = audience_kind(panel=panel, qualification_based=qualification_based)
    if kind == CROWD_WORK:
        return CLOSE_WINDOW
    if kind == QUALIFICATION:
        return SIGN_UP_PROMO_BUTTON
    return BACK_TO_HOMEPAGE


# --- values -------------------------------------------------------------------------------------------


def empty_details(country: str = geography.DEFAULT_COUNTRY) -> dict[str, str]:
    """Every field empty except the country (the test's audience country, US by default)."""
    details = dict.fromkeys(FIELDS, "")
    details["country"] = country if isinstance(country, str) else geography.DEFAULT_COUNTRY
    return details


def _text(value: Any) -> str:
    """A string value trimmed; anything else (None, numbers, lists) becomes ''."""
    return value.strip() if isinstance(value, str) else ""


def is_different_payment_email(details: Mapping[str, Any]) -> bool:
    """True when a payment e-mail exists and differs from the e-mail (case and spaces ignored)."""
    payment = normalize_email(_text(details.get("paymentEmail")))
    return bool(payment) and payment != normalize_email(_text(details.get("email")))


def normalise(
    details: Mapping[str, Any], *, enabled: Iterable[str] = FIELDS, different_payment_email: bool | None = None
) -> dict[str, str]:
    """Every field as text: trimmed, e-mails lowercased, country and state upper-case, LinkedIn and a
    valid phone normalised with the profile's rules (an invalid value is kept trimmed, for `validate`).

    When e-mail and payment e-mail are both enabled and the payment e-mail is not a different one
    (`different_payment_email`, by default `is_different_payment_email`), the payment e-mail is
    the e-mail. Keys that are not FIELDS are dropped.
    """
    out = {f: _text(details.get(f)) if isinstance(details, Mapping) else "" for f in FIELDS}
    for f in _EMAILS:
        out[f] = normalize_email(out[f])
    out["country"] = out["country"].upper()
    out["state"] = out["state"].upper()
    linkedin = rules.normalize_linkedin(out["linkedin"])
    if linkedin:
        out["linkedin"] = linkedin
    phone = rules.normalize_phone(out["phoneNumber"], country=out["country"])
    if phone:
        out["phoneNumber"] = phone
    shown = set(enabled)
    if "email" in shown and "paymentEmail" in shown:
        different = is_different_payment_email(out) if different_payment_email is None else different_payment_email
        if not different:
            out["paymentEmail"] = out["email"]
    return out


def _shape_errors(details: Any) -> dict[str, str]:
    """Refusals of the shape: not a mapping, unknown keys, values that are not text (None is empty)."""
    if not isinstance(details, Mapping):
        return {"_global": UNREADABLE}
    errors: dict[str, str] = {}
    if any(not isinstance(k, str) or k not in FIELDS for k in details):
        errors["_global"] = UNREADABLE
    for f in FIELDS:
        value = details.get(f)
        if value is not None and not isinstance(value, str):
            errors[f] = BAD_VALUE
        elif isinstance(value, str) and len(value.strip()) > MAX_LENGTHS[f]:
            errors[f] = TOO_LONG.format(max=MAX_LENGTHS[f])
    return errors


def _state_country(values: Mapping[str, str]) -> str:
    return values.get("country") or geography.DEFAULT_COUNTRY


def _field_error(f: str, values: Mapping[str, str]) -> str:
    """The message for one enabled field of normalised values ('' when it is fine)."""
    value = values[f]
    if f == "state":
        country = _state_country(values)
        if geography.is_country(country) and not geography.subdivisions(country):
            return STATE_NONE if value else ""
        if not value:
            return REQUIRED.format(label=LABELS[f])
        return "" if geography.is_state_of(country, value) else STATE_UNKNOWN
    if not value:
        return "" if f in OPTIONAL_FIELDS else REQUIRED.format(label=LABELS[f])
    if f == "workerId" and not _WORKER_ID.match(value):
        return WORKER_ID_INVALID
    if f in _EMAILS:
        return rules.email_error(value, required_message=REQUIRED.format(label=LABELS[f]))
    if f == "phoneNumber" and rules.normalize_phone(value, country=values.get("country", "")) is None:
        return PHONE_INVALID
    if f == "linkedin" and rules.normalize_linkedin(value) is None:
        return LINKEDIN_INVALID
    if f == "country" and not geography.is_country(value):
        return COUNTRY_UNKNOWN
    return ""


def validate(details: Any, enabled: Iterable[str], *, different_payment_email: bool | None = None) -> dict[str, str]:
    """{field: message} for the personal-info step; {} when it may be submitted.

    Unknown keys ('_global') and values that are not text are refused for every field; enabled
    fields must be filled after trimming (the phone is optional) and pass their rule; a payment
    e-mail that is the e-mail is not checked twice. The country
    and state are checked when enabled; a state is checked against the country in the details
    (US when empty): a crowd-work worker picks a US state without seeing the country.
    """
    errors = _shape_errors(details)
    if "_global" in errors and not isinstance(details, Mapping):
        return errors
    shown = set(enabled)
    values = normalise(details, enabled=shown, different_payment_email=different_payment_email)
    if "email" in shown and "paymentEmail" in shown and values["paymentEmail"] == values["email"]:
        shown.discard("paymentEmail")  # the e-mail's own message is enough
    for f in (f for f in FIELDS if f in shown):
        if f in errors or (f == "state" and "country" in errors):  # the country is fixed first
            continue
        message = _field_error(f, values)
        if message:
            errors[f] = message
    return errors


def is_complete(details: Any, enabled: Iterable[str], *, different_payment_email: bool | None = None) -> bool:
    """The wizard's stepsValidation.personalInfo: every enabled field filled and valid."""
    return not validate(details, enabled, different_payment_email=different_payment_email)


def for_submission(
    details: Mapping[str, Any], enabled: Iterable[str], *, different_payment_email: bool | None = None
) -> dict[str, str]:
    """The workerData stored with a review: the normalised values of the enabled fields only
    (call after `validate` found nothing)."""
    shown = set(enabled)
    values = normalise(details, enabled=shown, different_payment_email=different_payment_email)
    return {f: values[f] for f in FIELDS if f in shown}


# --- the worker look-up ------------------------------------------------------------------------------

LOOKUP_KEYS: tuple[str, ...] = ("workerId", "email")


def lookup_result(found: Mapping[str, Any] | None, current: Mapping[str, Any]) -> dict[str, str]:
    """The details once a look-up answers (spec section 4).

    An empty answer resets the details to empty, keeping the country and what the person typed
    into the look-up keys (workerId, email): the reset drops another worker's details, not the
    text being typed. Otherwise the found text values of FIELDS replace the current ones.
    """
    base = {f: _text(current.get(f)) if isinstance(current, Mapping) else "" for f in FIELDS}
    if not found or not isinstance(found, Mapping):
        details = empty_details(base["country"] or geography.DEFAULT_COUNTRY)
        for key in LOOKUP_KEYS:
            details[key] = base[key]
        return details
    for f in FIELDS:
        value = found.get(f)
        if isinstance(value, str) and value.strip():
            base[f] = value.strip()
    return base


def clean_worker_id(value: Any) -> str | None:
    """A worker ID typed or sent by a browser, trimmed; None when it cannot be one."""
    text = _text(value)
    if not text or len(text) > WORKER_ID_MAX or not _WORKER_ID.match(text):
        return None
    return text


# --- kept pending in the browser (issue 18, item 3) ---------------------------------------------------
# The browser's copy of a draft keeps each detail beside the answers, under its own key: a change is
# pending there (in local storage) until a later event confirms that the stored state holds it, as an
# answer is (portal/states/taking/timed_session.py). Keystrokes are kept there too before the field is left.

DETAIL_KEY_PREFIX = "detail:"
DIFFERENT_PAYMENT = "differentPayment"  # the checkbox 'I want to be paid to a different email'
INPUT_MAX = 300  # what a field keeps of what arrives (the rules' own limits are checked on Submit)


def detail_key(field: str) -> str:
    """The key of a field (or of the checkbox, DIFFERENT_PAYMENT) in the browser's copy."""
    return DETAIL_KEY_PREFIX + field


def is_detail_key(key: Any) -> bool:
    return isinstance(key, str) and key.startswith(DETAIL_KEY_PREFIX)


def browser_details(
    details: Mapping[str, str], different_payment: bool, enabled: Iterable[str]
) -> dict[str, dict[str, Any]]:
    """The enabled fields and the checkbox as the browser keeps them: {key: {"value": ...}}."""
    kept: dict[str, dict[str, Any]] = {detail_key(f): {"value": details.get(f, "")} for f in enabled if f in FIELDS}
    if kept:
        kept[detail_key(DIFFERENT_PAYMENT)] = {"value": different_payment is True}
    return kept


def pending_detail(key: Any, entry: Any, enabled: Iterable[str]) -> tuple[str, str | bool] | None:
    """A detail the browser kept ({"value": ...} under `detail_key`): (field, value) for an enabled field
    with text (cut at INPUT_MAX) or the checkbox with true or false; None for anything else (another
    key, a field not enabled, a malformed entry)."""
    if not is_detail_key(key) or not isinstance(entry, Mapping):
        return None
    field, value = key[len(DETAIL_KEY_PREFIX) :], entry.get("value")
    if field == DIFFERENT_PAYMENT:
        return (field, value) if isinstance(value, bool) else None
    if field in FIELDS and field in set(enabled) and isinstance(value, str):
        return field, value[:INPUT_MAX]
    return None


def split_browser_copy(
    answers: Mapping[str, Any], enabled: Iterable[str]
) -> tuple[dict[str, Any], dict[str, str], bool | None]:
    """The browser's copy of the answers: the answers themselves, and the details it holds (the newest
    this browser had: typed or pending) with the checkbox (None when it holds none)."""
    enabled = tuple(enabled)
    own = {k: v for k, v in answers.items() if not is_detail_key(k)}
    details: dict[str, str] = {}
    different: bool | None = None
    for key, entry in answers.items():
        found = pending_detail(key, entry, enabled)
        if found is None:
            continue
        if found[0] == DIFFERENT_PAYMENT:
            different = found[1] is True
        else:
            details[found[0]] = str(found[1])
    return own, details, different
