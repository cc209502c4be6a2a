"""The staff view of a participant's profile (/admin/participants/{id}): its messages, and what blocks
'Submit & Verify', named field by field. The form's own rules are `portal.domain.profile_rules`."""

from __future__ import annotations

from collections.abc import Mapping

SAVED = "Profile saved."
SAVED_AND_VERIFIED = "Profile saved. The participant is verified."
NOT_FOUND = "This participant does not exist."
STAFF_NOT_VERIFIED = "Staff accounts are not verified: they need no verification to use the portal."
DEACTIVATED = "This account is deactivated: reactivate it before changing its profile."
BLOCKERS_TITLE = "What blocks verification"
OWN_ACCOUNT = "This is your own account: change it at My profile."
READY = "Nothing blocks verification."

# The form's fields by the names the page shows (the keys of profile_rules.ProfileForm's flat values).
FIELD_LABELS: dict[str, str] = {
    "firstName": "First name",
    "lastName": "Last name",
    "email": "Email",
    "workEmail": "Work email",
    "phoneNumber": "Phone number",
    "linkedin": "LinkedIn profile",
    "birthYear": "Birth year",
    "country": "Country",
    "state": "State / region",
    "jobTitle": "Job title",
    "companyName": "Company name",
    "experienceLevels": "Seniority",
    "companySize": "Company size",
    "industries": "Industries",
    "languages": "Languages",
    "roles": "Roles",
    "audiences": "Audience",
    "gender": "Gender",
    "pronoun": "Pronoun",
    "gender_custom": "Gender (self-described)",
    "sex_orientation": "Sexual orientation",
    "sex_orientation_custom": "Sexual orientation (self-described)",
    "race": "Race",
    "ethnicity": "Ethnicity",
    "veteran": "Veteran status",
}


def field_label(key: str) -> str:
    return FIELD_LABELS.get(key, key)


def verification_blockers(errors: Mapping[str, str]) -> list[str]:
    """Each field whose value stops 'Submit & Verify' (the form's errors), as 'Label: message', in form order."""
    order = list(FIELD_LABELS)
    keys = sorted(
        (k for k in errors if not k.startswith("_")), key=lambda k: order.index(k) if k in order else len(order)
    )
    return [f"{field_label(key)}: {errors[key]}" for key in keys]
