"""The participant profile form (screen 10): its fields, option lists, labels and every rule.

Pure: no Reflex, no database. The profile page uses these functions for the live
messages and the save service (`portal.services.profile`) calls `parse_payload` and
`validate` again on what arrives, so a request that skips the browser meets the same
rules. Checks that need the database (unknown industry ids, e-mails used by another
account, the work-e-mail domain rule) live in the service and use the messages here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import urlsplit

import phonenumbers
from email_validator import EmailNotValidError, validate_email

from portal.domain import geography, messages, work_email
from portal.domain.accounts import normalize_email
from portal.domain.ids import whole_number
from portal.domain.reference_data import LANGUAGE_OPTIONS, SENIORITY_KEYS, Option

# --- limits (section 9) -----------------------------------------------------------
MAX_INDUSTRIES = 3
MAX_SENIORITY = 2
PICKER_PAGE_SIZE = 100  # company sizes and industries are loaded 100 per page
MIN_BIRTH_YEAR = 1900
MIN_AGE = 16  # ours: the youngest birth year accepted is this many years ago
NAME_MAX = 100
TEXT_MAX = 200
CUSTOM_MAX = 100
EMAIL_MAX = 320
LINKEDIN_MAX = 300

# --- spec strings -----------------------------------------------------------------
TITLE = "Become a participant - Have an impact, get paid."
INTRO = "Keep your personal information current so we can match you with the right tests."
FIRST_NAME_REQUIRED = "First name is required"
LAST_NAME_REQUIRED = "Last name is required"
EMAIL_REQUIRED = messages.EMAIL_REQUIRED  # 'Email is required'
WORK_EMAIL_REQUIRED = work_email.MESSAGE_REQUIRED  # 'Work email is required'
EMAIL_EXISTS = work_email.MESSAGE_TAKEN  # 'Email already exists'
INDUSTRIES_LIMIT = "You can add up to 3 industries."
CHECK_VALUES = "Check that all values in the form are correct."
LAST_NAME_HELPER = "You can use an alias if you wish."
PHONE_HELPER = "Never miss a test invite, get notifications to your phone (not obligatory)"
SAVED = "Change request has been sent successfully!"
VERIFY_WARNING = "We've sent a verification link to {email}. Please check your email, including spam folders."
PROFILE_REMOVED = "Sorry, your profile was removed"
FORM_ERROR = "Form contains error, please double check all fields"
SOMETHING_WENT_WRONG = messages.SOMETHING_WENT_WRONG
LIST_LOAD_FAILED = "Was unable to load {what} list, please try again later"
COMPANY_SIZES_LIST = "company sizes"
INDUSTRIES_LIST = "industries"
VERIFY_BUTTON = "Submit & Verify"
VERIFIED_BUTTON = "Verified"

# --- ours, where the spec shows no text ------------------------------------------------
ENGLISH_REQUIRED = "Fluent English is required for all panelists."
SENIORITY_LIMIT = "You can choose up to 2 seniority levels."
EMAIL_INVALID = work_email.MESSAGE_INVALID  # 'Please enter a valid email address'
PHONE_INVALID = "Please enter a valid phone number with its country code, e.g. +1 415 555 0134"
LINKEDIN_INVALID = "Please enter your LinkedIn profile address, e.g. https://www.linkedin.com/in/your-name"
BIRTH_YEAR_INVALID = "Please enter a 4-digit year between {low} and {high}"
COUNTRY_UNKNOWN = "Please choose a country from the list"
STATE_UNKNOWN = "Please choose a state of the selected country"
OPTION_UNKNOWN = "Please choose a value from the list"
LIST_UNKNOWN = "Please choose values from the list"
TOO_LONG = "Please use at most {max} characters"
NONE_WITH_OTHERS = "'None of these' cannot be combined with other languages"
JOB_TITLE_MISMATCH = "Your job title must match the title of your LinkedIn profile ({title})"
STAFF_ONLY = "Only staff can change this field"
NOT_YOUR_PROFILE = "You can only change your own profile."
COMPANY_SIZE_HELPER = "Freelancers choose 0 - 1 employees."
LANGUAGES_HELPER = "Tests are in English, so fluent English is required for all panelists."
NAME_PRIVATE_HELPER = "Customers see your initials instead of your name."

SELF_DESCRIBE = "Prefer to self-describe"
PREFER_NOT = "Prefer not to say"  # the stored value
PREFER_NOT_LABEL = "Prefer not to answer"  # what the list shows for it
NOT_ANSWERED = "Choose one"  # the empty choice of a demographic list (not answered yet)


def _options(*labels: str) -> tuple[Option, ...]:
    """Each label its own value; the refusal reads 'Prefer not to answer' (issue 40: the list said it twice, as the
    empty choice and as this one), its stored value staying 'Prefer not to say' so profiles saved before keep it."""
    return tuple(Option(label, PREFER_NOT_LABEL if label == PREFER_NOT else label) for label in labels)


# Demographic fields of the profile entity; the spec names them but not their options.
GENDER_OPTIONS = _options("Woman", "Man", "Non-binary", SELF_DESCRIBE, PREFER_NOT)
PRONOUN_OPTIONS = _options("She/her", "He/him", "They/them", "Other", PREFER_NOT)
SEX_ORIENTATION_OPTIONS = _options("Heterosexual or straight", "Gay or lesbian", "Bisexual", SELF_DESCRIBE, PREFER_NOT)
RACE_OPTIONS = _options(
    "American Indian or Alaska Native",
    "Asian",
    "Black or African American",
    "Native Hawaiian or Other Pacific Islander",
    "White",
    "Two or more races",
    PREFER_NOT,
)
ETHNICITY_OPTIONS = _options("Hispanic or Latino", "Not Hispanic or Latino", PREFER_NOT)
VETERAN_OPTIONS = _options("Yes", "No", PREFER_NOT)

# (form key, label, options) of every demographic select, in form order.
DEMOGRAPHIC_FIELDS: tuple[tuple[str, str, tuple[Option, ...]], ...] = (
    ("gender", "Gender", GENDER_OPTIONS),
    ("pronoun", "Pronoun", PRONOUN_OPTIONS),
    ("sex_orientation", "Sexual orientation", SEX_ORIENTATION_OPTIONS),
    ("race", "Race", RACE_OPTIONS),
    ("ethnicity", "Ethnicity", ETHNICITY_OPTIONS),
    ("veteran", "Veteran status", VETERAN_OPTIONS),
)
# A custom text goes with 'Prefer to self-describe'.
CUSTOM_FIELDS = {"gender": "gender_custom", "sex_orientation": "sex_orientation_custom"}

LANGUAGE_KEYS: tuple[str, ...] = tuple(o.value for o in LANGUAGE_OPTIONS)
NO_LANGUAGE = "none"
ENGLISH = "english"

# The form's text fields (key -> the longest value kept).
TEXT_FIELDS: dict[str, int] = {
    "firstName": NAME_MAX,
    "lastName": NAME_MAX,
    "email": EMAIL_MAX,
    "workEmail": EMAIL_MAX,
    "phoneNumber": 40,
    "linkedin": LINKEDIN_MAX,
    "birthYear": 8,
    "country": 8,
    "state": 16,
    "jobTitle": TEXT_MAX,
    "companySize": 32,
    "companyName": TEXT_MAX,
    "gender": 64,
    "pronoun": 64,
    "gender_custom": CUSTOM_MAX,
    "sex_orientation": 64,
    "sex_orientation_custom": CUSTOM_MAX,
    "race": 64,
    "ethnicity": 64,
    "veteran": 64,
}
BOOL_FIELDS: tuple[str, ...] = ("hasAnonymizationEnabled", "linkedinPrivacy", "hasExperience")
ID_LIST_FIELDS: tuple[str, ...] = ("industries", "roles", "audiences")  # ids of reference rows
KEY_LIST_FIELDS: tuple[str, ...] = ("experienceLevels", "languages")  # option keys
STAFF_FIELDS: tuple[str, ...] = ("roles", "audiences")


@dataclass(frozen=True)
class ProfileForm:
    """The profile form's values, flat. `roles`/`audiences` are None when not sent (participants)."""

    firstName: str = ""
    lastName: str = ""
    hasAnonymizationEnabled: bool = False
    email: str = ""
    workEmail: str = ""
    phoneNumber: str = ""
    linkedin: str = ""
    linkedinPrivacy: bool = False
    hasExperience: bool = False
    birthYear: str = ""
    country: str = ""
    state: str = ""
    industries: tuple[int, ...] = ()
    jobTitle: str = ""
    roles: tuple[int, ...] | None = None
    experienceLevels: tuple[str, ...] = ()
    companySize: str = ""
    companyName: str = ""
    languages: tuple[str, ...] = ()
    audiences: tuple[int, ...] | None = None
    gender: str = ""
    pronoun: str = ""
    gender_custom: str = ""
    sex_orientation: str = ""
    sex_orientation_custom: str = ""
    race: str = ""
    ethnicity: str = ""
    veteran: str = ""
    participant_id: int | None = None  # the spec's _id, when the request names one
    extra: tuple[str, ...] = field(default=())  # keys sent that are not profile fields (ignored)

    def with_values(self, **values: Any) -> ProfileForm:
        return replace(self, **values)


# --- small parsers for values that arrive from the browser ------------------------------


def _as_text(value: Any, limit: int) -> tuple[str, bool]:
    """(text, too_long). Non-strings (numbers excepted) become ''."""
    if isinstance(value, bool) or value is None:
        return "", False
    if isinstance(value, int | float):
        value = str(value)
    if not isinstance(value, str):
        return "", False
    text = value.strip()
    return text, len(text) > limit


def _as_bool(value: Any) -> bool:
    return value is True or (isinstance(value, str) and value.lower() in ("true", "on", "1"))


def _as_ids(value: Any) -> tuple[tuple[int, ...], bool]:
    """(ids, ok). Accepts ints and digit strings; anything else makes the list invalid."""
    if value is None:
        return (), True
    if not isinstance(value, list | tuple):
        return (), False
    ids: list[int] = []
    for item in value:
        if isinstance(item, dict):  # a nested entity: reduce to its id
            item = item.get("_id", item.get("id"))
        if isinstance(item, bool):
            return (), False
        if isinstance(item, str):
            item = whole_number(item)
        if not isinstance(item, int) or item <= 0:
            return (), False
        ids.append(item)
    return tuple(ids), True


def _as_keys(value: Any) -> tuple[tuple[str, ...], bool]:
    if value is None:
        return (), True
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) and len(v) <= 64 for v in value):
        return (), False
    return tuple(value), True


def parse_payload(raw: Any) -> tuple[ProfileForm, dict[str, str]]:
    """A form from untrusted values (flat keys, or the spec's nested experience/company shape).

    Returns the form and the errors found while reading it (wrong types, too long).
    """
    if not isinstance(raw, Mapping):
        return ProfileForm(), {"_global": FORM_ERROR}
    flat: dict[str, Any] = {k: v for k, v in raw.items() if isinstance(k, str)}
    experience = flat.pop("experience", None)
    if isinstance(experience, Mapping):
        for key in ("jobTitle", "roles", "experienceLevels", "companySize"):
            if key in experience:
                flat[key] = experience[key]
    company = flat.pop("company", None)
    if isinstance(company, Mapping) and "name" in company:
        flat["companyName"] = company["name"]
    if isinstance(flat.get("companySize"), Mapping):
        flat["companySize"] = flat["companySize"].get("_id", flat["companySize"].get("id"))
    errors: dict[str, str] = {}
    values: dict[str, Any] = {}
    for key, limit in TEXT_FIELDS.items():
        text, too_long = _as_text(flat.get(key), limit)
        if too_long:
            errors[key] = TOO_LONG.format(max=limit)
        values[key] = text[:limit]
    for key in BOOL_FIELDS:
        values[key] = _as_bool(flat.get(key))
    for key in ID_LIST_FIELDS:
        ids, ok = _as_ids(flat.get(key))
        if not ok:
            errors[key] = LIST_UNKNOWN
        values[key] = ids
    for key in STAFF_FIELDS:
        if flat.get(key) is None:
            values[key] = None
    for key in KEY_LIST_FIELDS:
        keys, ok = _as_keys(flat.get(key))
        if not ok:
            errors[key] = LIST_UNKNOWN
        values[key] = keys
    participant = flat.get("_id")
    if participant is not None:
        if isinstance(participant, str):
            participant = whole_number(participant)
        if not isinstance(participant, int) or isinstance(participant, bool):
            errors["_id"] = NOT_YOUR_PROFILE
            participant = -1
        values["participant_id"] = participant
    known = set(TEXT_FIELDS) | set(BOOL_FIELDS) | set(ID_LIST_FIELDS) | set(KEY_LIST_FIELDS) | {"_id"}
    values["extra"] = tuple(sorted(k for k in flat if k not in known))
    return ProfileForm(**values), errors


def to_payload(form: ProfileForm, *, updated_by_admin: bool) -> dict[str, Any]:
    """The change request: only the listed fields, nested entities as ids, plus updatedByAdmin."""
    payload: dict[str, Any] = {
        "firstName": form.firstName,
        "lastName": form.lastName,
        "hasAnonymizationEnabled": form.hasAnonymizationEnabled,
        "email": normalize_email(form.email),
        "workEmail": normalize_email(form.workEmail),
        "phoneNumber": form.phoneNumber or None,
        "linkedin": form.linkedin or None,
        "linkedinPrivacy": form.linkedinPrivacy,
        "hasExperience": form.hasExperience,
        "birthYear": whole_number(form.birthYear),
        "country": form.country or None,
        "state": form.state or None,
        "industries": list(form.industries),
        "experience": {
            "jobTitle": form.jobTitle or None,
            "experienceLevels": list(form.experienceLevels),
            "companySize": form.companySize or None,
        },
        "company": {"name": form.companyName or None},
        "languages": list(form.languages),
    }
    if form.roles is not None:
        payload["experience"]["roles"] = list(form.roles)
    if form.audiences is not None:
        payload["audiences"] = list(form.audiences)
    for key, _label, _options in DEMOGRAPHIC_FIELDS:
        payload[key] = getattr(form, key) or None
    for custom in CUSTOM_FIELDS.values():
        payload[custom] = getattr(form, custom) or None
    payload["updatedByAdmin"] = updated_by_admin
    return payload


# --- single-field rules and normalisers ---------------------------------------------------------

_LINKEDIN_HOST = re.compile(r"^(?:[a-z]{2,3}\.|www\.)?linkedin\.com$")


def normalize_linkedin(value: str) -> str | None:
    """'linkedin.com/in/x', 'http://uk.linkedin.com/in/x/' ... -> 'https://www.linkedin.com/in/x'.
    None if not LinkedIn."""
    text = (value or "").strip()
    if not text:
        return ""
    if "://" not in text:
        text = "https://" + text
    try:
        parts = urlsplit(text)
    except ValueError:
        return None
    host = (parts.hostname or "").lower()
    path = parts.path.rstrip("/")
    if parts.scheme.lower() not in ("http", "https") or not _LINKEDIN_HOST.match(host) or not path or path == "/":
        return None
    if parts.username or parts.password or parts.port or any(ch.isspace() for ch in path):
        return None
    normalized = f"https://www.linkedin.com{path}"
    return normalized if len(normalized) <= LINKEDIN_MAX else None


def digits_only(value: str) -> str:
    """What the birth-year input keeps of a typed value."""
    return "".join(ch for ch in (value or "") if "0" <= ch <= "9")[:4]


def birth_year_error(value: str, *, current_year: int) -> str:
    """'' for empty or a 4-digit year between 1900 and current_year - 16."""
    high = current_year - MIN_AGE
    if not value:
        return ""
    if not (len(value) == 4 and value.isascii() and value.isdigit()) or not MIN_BIRTH_YEAR <= int(value) <= high:
        return BIRTH_YEAR_INVALID.format(low=MIN_BIRTH_YEAR, high=high)
    return ""


def normalize_phone(value: str, *, country: str = "") -> str | None:
    """E.164 ('+14155550134') for a valid number, '' for empty, None when invalid.

    A number without '+' is read in the profile's country when one is set.
    """
    text = (value or "").strip()
    if not text:
        return ""
    region = country.upper() if geography.is_country(country.upper() if country else None) else None
    try:
        number = phonenumbers.parse(text, None if text.startswith("+") else region)
    except phonenumbers.NumberParseException:
        return None
    if not phonenumbers.is_valid_number(number):
        return None
    return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)


def email_error(value: str, *, required_message: str) -> str:
    text = normalize_email(value)
    if not text:
        return required_message
    try:
        validate_email(text, check_deliverability=False)
    except EmailNotValidError:
        return EMAIL_INVALID
    return ""


def state_after_country_change(country: str, state: str) -> str:
    """Changing country keeps the state only when it belongs to the new country."""
    return state if geography.is_state_of(country, state) else ""


# --- pickers -------------------------------------------------------------------------


def toggle_language(current: Iterable[str], value: str) -> list[str]:
    """'none' clears and replaces the others; picking another language removes 'none'."""
    chosen = [v for v in current if v in LANGUAGE_KEYS]
    if value not in LANGUAGE_KEYS:
        return chosen
    if value in chosen:
        return [v for v in chosen if v != value]
    if value == NO_LANGUAGE:
        return [NO_LANGUAGE]
    return [v for v in chosen if v != NO_LANGUAGE] + [value]


def toggle_seniority(current: Iterable[str], value: str) -> list[str]:
    """Adds or removes a seniority level; a third one is not added (the others are disabled after two)."""
    chosen = [v for v in current if v in SENIORITY_KEYS]
    if value not in SENIORITY_KEYS:
        return chosen
    if value in chosen:
        return [v for v in chosen if v != value]
    return chosen if len(chosen) >= MAX_SENIORITY else chosen + [value]


def seniority_disabled(current: Iterable[str], value: str) -> bool:
    chosen = list(current)
    return value not in chosen and len(chosen) >= MAX_SENIORITY


def toggle_id(current: Iterable[int], value: int) -> list[int]:
    """Adds or removes an id. Industries are not capped here: a 4th shows the limit message."""
    chosen = list(current)
    return [v for v in chosen if v != value] if value in chosen else chosen + [value]


def _short_count(n: int) -> str:
    if n >= 1_000_000:
        text, unit = f"{n / 1_000_000:.1f}", "M"
    elif n >= 1000:
        text, unit = f"{n / 1000:.1f}", "K"
    else:
        return str(n)
    return text.removesuffix(".0") + unit


def company_size_label(size_id: str, min_size: int | None, max_size: int | None, without_max_size: bool) -> str:
    """'10 - 49 employees', '1K+ employees', '1 employee'; 'All employees' for the id 'ALL'.

    A range that ends at 1 (one-person businesses) reads '0 - 1 employees': the size freelancers choose.
    """
    if size_id == "ALL":
        return "All employees"
    low = min_size or 0
    if without_max_size or max_size is None:
        return f"{_short_count(low)}+ employees"
    if max_size <= 1:
        return "0 - 1 employees"
    if low == max_size:
        return f"{_short_count(low)} employee" + ("" if low == 1 else "s")
    return f"{_short_count(low)} - {_short_count(max_size)} employees"


def list_load_failed(what: str) -> str:
    return LIST_LOAD_FAILED.format(what=what)


# --- the whole form ---------------------------------------------------------------------------


def _job_title_matches(job_title: str, linkedin_title: str) -> bool:
    """The job title must be found in the LinkedIn title (headline), case and spacing ignored."""

    def norm(s: str) -> str:
        return " ".join(s.casefold().split())

    return not job_title or norm(job_title) in norm(linkedin_title)


def validate(
    form: ProfileForm, *, is_staff: bool, current_year: int, is_panelist: bool | None = None, linkedin_title: str = ""
) -> dict[str, str]:
    """Every rule of the profile form that needs no database. Keys are form field keys.

    `is_staff`: the person saving is staff (may edit roles and audiences; the LinkedIn-title
    rule does not bind them). `is_panelist`: the profile is a participant's (fluent English
    required); by default, when the person saving is not staff.
    """
    panelist = (not is_staff) if is_panelist is None else is_panelist
    errors: dict[str, str] = {}
    if not form.firstName:
        errors["firstName"] = FIRST_NAME_REQUIRED
    if not form.lastName:
        errors["lastName"] = LAST_NAME_REQUIRED
    for key, required in (("email", EMAIL_REQUIRED), ("workEmail", WORK_EMAIL_REQUIRED)):
        message = email_error(getattr(form, key), required_message=required)
        if message:
            errors[key] = message
    if form.phoneNumber and normalize_phone(form.phoneNumber, country=form.country) is None:
        errors["phoneNumber"] = PHONE_INVALID
    if form.linkedin and normalize_linkedin(form.linkedin) is None:
        errors["linkedin"] = LINKEDIN_INVALID
    message = birth_year_error(form.birthYear, current_year=current_year)
    if message:
        errors["birthYear"] = message
    if form.country and not geography.is_country(form.country):
        errors["country"] = COUNTRY_UNKNOWN
    if form.state and not geography.is_state_of(form.country, form.state):
        errors["state"] = STATE_UNKNOWN
    if len(set(form.industries)) != len(form.industries):
        errors["industries"] = LIST_UNKNOWN
    elif len(form.industries) > MAX_INDUSTRIES:
        errors["industries"] = INDUSTRIES_LIMIT
    levels = form.experienceLevels
    if any(v not in SENIORITY_KEYS for v in levels) or len(set(levels)) != len(levels):
        errors["experienceLevels"] = LIST_UNKNOWN
    elif len(levels) > MAX_SENIORITY:
        errors["experienceLevels"] = SENIORITY_LIMIT
    languages = form.languages
    if any(v not in LANGUAGE_KEYS for v in languages) or len(set(languages)) != len(languages):
        errors["languages"] = LIST_UNKNOWN
    elif NO_LANGUAGE in languages and len(languages) > 1:
        errors["languages"] = NONE_WITH_OTHERS
    elif panelist and ENGLISH not in languages:
        errors["languages"] = ENGLISH_REQUIRED
    for key, _label, options in DEMOGRAPHIC_FIELDS:
        value = getattr(form, key)
        if value and value not in {o.value for o in options}:
            errors[key] = OPTION_UNKNOWN
    for key, custom in CUSTOM_FIELDS.items():
        if getattr(form, custom) and getattr(form, key) != SELF_DESCRIBE:
            errors[custom] = OPTION_UNKNOWN
    if not is_staff:
        if form.roles is not None:
            errors["roles"] = STAFF_ONLY
        if form.audiences is not None:
            errors["audiences"] = STAFF_ONLY
        if linkedin_title and not _job_title_matches(form.jobTitle, linkedin_title):
            errors["jobTitle"] = JOB_TITLE_MISMATCH.format(title=linkedin_title)
    return errors


def normalized(form: ProfileForm) -> ProfileForm:
    """The values as stored: e-mails lowercased, LinkedIn and phone normalised (call after `validate`)."""
    country = form.country.upper()
    return form.with_values(
        email=normalize_email(form.email),
        workEmail=normalize_email(form.workEmail),
        linkedin=normalize_linkedin(form.linkedin) or "",
        phoneNumber=normalize_phone(form.phoneNumber, country=country) or "",
        country=country,
        gender_custom=form.gender_custom if form.gender == SELF_DESCRIBE else "",
        sex_orientation_custom=form.sex_orientation_custom if form.sex_orientation == SELF_DESCRIBE else "",
    )


def submit_hidden(errors: Mapping[str, str]) -> bool:
    """Submit is hidden while more than 3 industries are chosen (with 'Check that all values...')."""
    return errors.get("industries") == INDUSTRIES_LIMIT


def changed_emails(old_email: str, old_work_email: str, form: ProfileForm) -> list[tuple[str, str]]:
    """[(kind, new address)] for the e-mails that change ('personal' / 'work')."""
    out = []
    if normalize_email(form.email) != normalize_email(old_email):
        out.append(("personal", normalize_email(form.email)))
    if normalize_email(form.workEmail) != normalize_email(old_work_email):
        out.append(("work", normalize_email(form.workEmail)))
    return out


def flat_values(form: ProfileForm) -> dict[str, Any]:
    """The form's field values by key (lists for tuples), without the request's own keys."""
    out: dict[str, Any] = {}
    for key in ProfileForm.__dataclass_fields__:
        if key in ("participant_id", "extra"):
            continue
        value = getattr(form, key)
        out[key] = list(value) if isinstance(value, tuple) else value
    return out


def changed_fields(old: ProfileForm, new: ProfileForm) -> dict[str, Any]:
    """{key: old value} of the fields whose value changes (kept as oldData, highlighted for staff).

    Staff-only fields not sent (None) do not count as changed.
    """
    before, after = flat_values(old), flat_values(new)
    return {key: before[key] for key in after if after[key] is not None and before[key] != after[key]}
