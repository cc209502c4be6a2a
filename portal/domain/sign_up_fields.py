"""The sign-up fields of the onboarding (spec sections 3 and 5) and their rules.

Sign-up fields: firstName, lastName, email, workEmail, experience.jobTitle (`jobTitle`),
company.name (`companyName`) and the employer headquarters country (`employerHqCountry`, an
ISO 3166-1 alpha-2 code from pycountry). Pure: the onboarding page uses these functions for its
live messages and `services/onboarding.finish_sign_up` calls `parse` + `validate` again on what
arrives. Checks that need the database (an e-mail used by another account) live in the service.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from portal.domain import geography, work_email
from portal.domain import profile_rules as profile
from portal.domain.accounts import normalize_email

# --- spec strings (section 5) ---------------------------------------------------------
FIRST_NAME_REQUIRED = profile.FIRST_NAME_REQUIRED  # 'First name is required'
LAST_NAME_REQUIRED = profile.LAST_NAME_REQUIRED  # 'Last name is required'
EMAIL_REQUIRED = profile.EMAIL_REQUIRED  # 'Email is required'
WORK_EMAIL_REQUIRED = work_email.MESSAGE_REQUIRED  # 'Work email is required'
EXPERIENCE_REQUIRED = "Experience is required"  # the job title (experience.jobTitle)
COUNTRY_REQUIRED = "Country of employer headquarters is required"
FIELD_REQUIRED = "This field is required."  # a required field without a message of its own
REVIEW_INCOMPLETE = "All fields are required to continue."  # the 'Review your information' form
DETAILS_INCOMPLETE = "Please complete all required(*) fields to continue."
EMAIL_EXISTS = work_email.MESSAGE_TAKEN  # 'Email already exists'
# ours
EMAIL_INVALID = profile.EMAIL_INVALID
COUNTRY_UNKNOWN = profile.COUNTRY_UNKNOWN
TOO_LONG = profile.TOO_LONG
WORK_EMAIL_LOCKED = "Your work email is verified and cannot be changed here."

FIELDS: tuple[str, ...] = (
    "firstName",
    "lastName",
    "jobTitle",
    "email",
    "companyName",
    "workEmail",
    "employerHqCountry",
)
LABELS: dict[str, str] = {
    "firstName": "First name",
    "lastName": "Last name",
    "jobTitle": "Full-time job",
    "email": "Personal email",
    "companyName": "Company",
    "workEmail": "Work email",
    "employerHqCountry": "Country of employer headquarters",
}
# Required fields and their own message; company name is optional.
REQUIRED: dict[str, str] = {
    "firstName": FIRST_NAME_REQUIRED,
    "lastName": LAST_NAME_REQUIRED,
    "jobTitle": EXPERIENCE_REQUIRED,
    "email": EMAIL_REQUIRED,
    "workEmail": WORK_EMAIL_REQUIRED,
    "employerHqCountry": COUNTRY_REQUIRED,
}
MAX_LENGTH: dict[str, int] = {
    "firstName": profile.NAME_MAX,
    "lastName": profile.NAME_MAX,
    "jobTitle": profile.TEXT_MAX,
    "email": profile.EMAIL_MAX,
    "companyName": profile.TEXT_MAX,
    "workEmail": profile.EMAIL_MAX,
    "employerHqCountry": 2,
}


@dataclass(frozen=True)
class SignUpForm:
    firstName: str = ""
    lastName: str = ""
    jobTitle: str = ""
    email: str = ""
    companyName: str = ""
    workEmail: str = ""
    employerHqCountry: str = ""

    def values(self) -> dict[str, str]:
        return asdict(self)


def required_message(key: str) -> str:
    return REQUIRED.get(key, FIELD_REQUIRED)


def clean_value(key: str, value: Any) -> str:
    """A field's value as kept: strings only (anything else is empty), trimmed; e-mails lowercased."""
    if not isinstance(value, str):
        return ""
    text = value.strip()
    if key in ("email", "workEmail"):
        return normalize_email(text)
    if key == "employerHqCountry":
        return text.upper()
    return " ".join(text.split())  # runs of spaces in names and titles collapse


def parse(raw: Any) -> SignUpForm:
    """Only the sign-up fields, cleaned; unknown keys are dropped, missing ones are empty."""
    data = raw if isinstance(raw, Mapping) else {}
    return SignUpForm(**{key: clean_value(key, data.get(key)) for key in FIELDS})


def field_error(key: str, value: str) -> str:
    """The message for one field's (cleaned) value; '' when it is fine."""
    if key not in FIELDS:
        return ""
    if not value:
        return required_message(key) if key in REQUIRED else ""
    if key == "employerHqCountry":
        return "" if geography.is_country(value) else COUNTRY_UNKNOWN
    if len(value) > MAX_LENGTH[key]:
        return TOO_LONG.format(max=MAX_LENGTH[key])
    if key == "email":
        return profile.email_error(value, required_message=EMAIL_REQUIRED)
    if key == "workEmail":
        return work_email.shown_message(work_email.check_syntax_and_domain(value))
    return ""


def validate(form: SignUpForm, keys: tuple[str, ...] = FIELDS) -> dict[str, str]:
    """Every rule without the database, for the given fields (all by default)."""
    values = form.values()
    errors = {key: field_error(key, values[key]) for key in keys}
    return {key: message for key, message in errors.items() if message}


def missing(form: SignUpForm, keys: tuple[str, ...] = FIELDS) -> tuple[str, ...]:
    values = form.values()
    return tuple(key for key in keys if key in REQUIRED and not values[key])


def work_email_prefill(*, work_email_value: str, account_email: str, account_email_verified: bool) -> str:
    """Section 5: an empty work e-mail is prefilled (once) with the account e-mail when that is unverified."""
    if work_email_value or not account_email or account_email_verified:
        return work_email_value
    return normalize_email(account_email)


def linkedin_prefill(claims: Mapping[str, Any] | None) -> dict[str, str]:
    """What a professional-network profile gives the review form: names, job, e-mail, company."""
    claims = claims if isinstance(claims, Mapping) else {}

    def first(*names: str) -> str:
        for name in names:
            value = claims.get(name)
            if isinstance(value, str) and value.strip():
                return value
        return ""

    values = {
        "firstName": first("given_name", "firstName", "localizedFirstName"),
        "lastName": first("family_name", "lastName", "localizedLastName"),
        "jobTitle": first("jobTitle", "job_title", "headline"),
        "email": first("email", "emailAddress"),
        "companyName": first("companyName", "company", "organization"),
    }
    return {key: clean_value(key, value) for key, value in values.items() if value}
