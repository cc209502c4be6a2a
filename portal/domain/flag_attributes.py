"""The user attributes GrowthBook's rules can use, built in one place from the account and its profile.

Names follow GrowthBook's camelCase convention; define the same names (and types) as attributes in
GrowthBook to target them. The e-mail goes in as its domains only (`emailDomain`, `workEmailDomain`), never
the address: features are evaluated on the server, but attributes also reach tracking callbacks and logs,
and a domain is what a targeting rule needs (docs/decisions.md). Personal fields of the profile (name, phone,
birth year, gender, ...) are left out for the same reason. A value the user has not given is None (GrowthBook's
`$exists: false`); lists are [] when empty.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any, Protocol

from portal.domain.accounts import STAFF_ROLES, is_participant_verified, normalize_email


class AccountLike(Protocol):
    id: int
    email: str | None
    work_email: str | None
    email_verified_at: datetime | None
    work_email_verified_at: datetime | None
    is_registration_complete: bool
    stage: str
    verified: bool
    staff_role: str | None
    last_login_method: str | None
    created_at: datetime


class ProfileLike(Protocol):
    country: str | None
    state: str | None
    employer_hq_country: str | None
    experience_levels: list[str]
    company_size_id: str | None
    languages: list[str]
    has_experience: bool | None


def email_domain(address: str | None) -> str | None:
    """'example.com' for 'Ann@Example.com'; None without a usable address."""
    normalized = normalize_email(address)
    local, at, domain = normalized.rpartition("@")
    return domain if at and local and domain else None


def growthbook_attributes(
    account: AccountLike, profile: ProfileLike | None = None, role_names: Iterable[str] = ()
) -> dict[str, Any]:
    """The attribute dict for GrowthBook's SDK. `id` (the account id as text) is the hash attribute of
    percentage rollouts and experiments, so a user keeps their bucket across calls, processes and workers."""
    email_verified = account.email_verified_at is not None
    work_email_verified = account.work_email_verified_at is not None
    return {
        "id": str(account.id),
        "emailDomain": email_domain(account.email),
        "workEmailDomain": email_domain(account.work_email),
        "emailVerified": email_verified,
        "workEmailVerified": work_email_verified,
        "verified": is_participant_verified(
            verified=account.verified,
            stage=account.stage,
            email_verified=email_verified,
            work_email_verified=work_email_verified,
        ),
        "registrationComplete": bool(account.is_registration_complete),
        "stage": account.stage,
        "staff": account.staff_role in STAFF_ROLES,
        "staffRole": account.staff_role,
        "loginMethod": account.last_login_method,
        "signedUpAt": account.created_at.date().isoformat() if account.created_at else None,
        "country": profile.country if profile else None,
        "state": profile.state if profile else None,
        "employerHqCountry": profile.employer_hq_country if profile else None,
        "companySize": profile.company_size_id if profile else None,
        "seniority": list(profile.experience_levels or []) if profile else [],
        "languages": list(profile.languages or []) if profile else [],
        "hasExperience": profile.has_experience if profile else None,
        "roles": sorted(role_names),
    }
