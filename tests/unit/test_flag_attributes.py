"""The attributes GrowthBook's rules see (portal/domain/flag_attributes.py)."""

from __future__ import annotations

from datetime import UTC, datetime
from types import SimpleNamespace

import pytest

from portal.domain.flag_attributes import email_domain, growthbook_attributes

SIGNED_UP = datetime(2026, 3, 9, 14, 30, tzinfo=UTC)


def account(**changes):
    values = dict(
        id=42,
        email="Ann.Lee@Acme.Test",
        work_email="ann@corp.test",
        email_verified_at=SIGNED_UP,
        work_email_verified_at=None,
        is_registration_complete=True,
        stage="completed",
        verified=False,
        staff_role=None,
        last_login_method="linkedin",
        created_at=SIGNED_UP,
    )
    return SimpleNamespace(**{**values, **changes})


PROFILE = SimpleNamespace(
    country="US",
    state="US-CA",
    employer_hq_country="DE",
    experience_levels=["senior"],
    company_size_id="small",
    languages=["en", "de"],
    has_experience=True,
)


@pytest.mark.parametrize(
    ("address", "domain"),
    [
        ("Ann@Example.COM", "example.com"),
        (" a@b.test ", "b.test"),
        ("no-at-sign", None),
        ("@x.test", None),
        ("a@", None),
        (None, None),
        ("", None),
    ],
)
def test_email_domain(address, domain):
    assert email_domain(address) == domain


def test_attributes_from_account_profile_and_roles():
    attributes = growthbook_attributes(account(), PROFILE, ["Product Manager", "Engineer"])
    assert attributes == {
        "id": "42",
        "emailDomain": "acme.test",
        "workEmailDomain": "corp.test",
        "emailVerified": True,
        "workEmailVerified": False,
        "verified": False,
        "registrationComplete": True,
        "stage": "completed",
        "staff": False,
        "staffRole": None,
        "loginMethod": "linkedin",
        "signedUpAt": "2026-03-09",
        "country": "US",
        "state": "US-CA",
        "employerHqCountry": "DE",
        "companySize": "small",
        "seniority": ["senior"],
        "languages": ["en", "de"],
        "hasExperience": True,
        "roles": ["Engineer", "Product Manager"],
    }
    assert "ann.lee" not in str(attributes).lower() and "ann@" not in str(attributes)  # domains, never addresses


def test_verified_follows_the_portal_rule_and_staff_its_roles():
    both_verified = growthbook_attributes(account(work_email_verified_at=SIGNED_UP))
    assert both_verified["verified"] is True  # completed stage and both e-mails verified
    assert growthbook_attributes(account(verified=True, stage="new"))["verified"] is True
    assert growthbook_attributes(account(staff_role="super-admin"))["staff"] is True
    assert growthbook_attributes(account(staff_role="someone"))["staff"] is False


def test_an_account_without_a_profile_has_empty_profile_attributes():
    attributes = growthbook_attributes(account())
    assert attributes["country"] is None and attributes["seniority"] == [] and attributes["roles"] == []
