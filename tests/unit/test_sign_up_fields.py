"""The sign-up fields of the onboarding (spec section 5): every rule with bad inputs."""

from __future__ import annotations

import pytest

from portal.domain import sign_up_fields as rules

GOOD = {
    "firstName": "Nia",
    "lastName": "Newman",
    "jobTitle": "Head of Finance",
    "email": "nia@example.com",
    "companyName": "",
    "workEmail": "nia@northwind.example",
    "employerHqCountry": "DE",
}


def _errors(**changes):
    return rules.validate(rules.parse({**GOOD, **changes}))


def test_a_complete_form_has_no_error():
    assert _errors() == {}
    assert _errors(companyName="Northwind") == {}  # company is optional


@pytest.mark.parametrize(
    ("key", "message"),
    [
        ("firstName", "First name is required"),
        ("lastName", "Last name is required"),
        ("email", "Email is required"),
        ("workEmail", "Work email is required"),
        ("jobTitle", "Experience is required"),
        ("employerHqCountry", "Country of employer headquarters is required"),
    ],
)
@pytest.mark.parametrize("empty", ["", "   ", None, 12, ["x"], {"a": 1}])
def test_required_fields_and_their_messages(key, message, empty):
    assert _errors(**{key: empty}) == {key: message}


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("firstName", "x" * 101, "Please use at most 100 characters"),
        ("lastName", "y" * 101, "Please use at most 100 characters"),
        ("jobTitle", "z" * 201, "Please use at most 200 characters"),
        ("companyName", "c" * 201, "Please use at most 200 characters"),
        ("email", "not-an-email", "Please enter a valid email address"),
        ("email", "nia@localhost", "Please enter a valid email address"),
        ("workEmail", "nia@", "Please enter a valid email address"),
        (
            "workEmail",
            "nia@gmail.com",
            "Please use your work email. Addresses from free email providers such as gmail.com are not accepted.",
        ),
        ("workEmail", "nia@yopmail.com", "Disposable email addresses are not accepted. Please use your work email."),
        ("employerHqCountry", "XX", "Please choose a country from the list"),
        ("employerHqCountry", "Germany", "Please choose a country from the list"),
        ("employerHqCountry", "D", "Please choose a country from the list"),
    ],
)
def test_bad_values(key, value, message):
    assert _errors(**{key: value}) == {key: message}


def test_parse_keeps_only_the_sign_up_fields_cleaned():
    form = rules.parse(
        {
            **GOOD,
            "firstName": "  Nia   Maria ",
            "email": " NIA@Example.COM ",
            "employerHqCountry": "de",
            "verified": True,
            "_id": 7,
            "stage": "completed",
        }
    )
    assert form.firstName == "Nia Maria" and form.email == "nia@example.com" and form.employerHqCountry == "DE"
    assert set(form.values()) == set(rules.FIELDS)
    assert rules.parse("not a mapping") == rules.SignUpForm()
    assert rules.parse(None).values() == {key: "" for key in rules.FIELDS}


def test_missing_and_fallback_message():
    form = rules.parse({**GOOD, "firstName": "", "companyName": ""})
    assert rules.missing(form) == ("firstName",)
    assert rules.required_message("somethingElse") == "This field is required."
    assert rules.field_error("notAField", "") == ""


@pytest.mark.parametrize(
    ("work", "email", "verified", "expected"),
    [
        ("", "old@acme.com", False, "old@acme.com"),  # prefilled from an unverified account e-mail
        ("", "Old@Acme.com", False, "old@acme.com"),
        ("", "old@acme.com", True, ""),  # a verified account e-mail is not a work e-mail guess
        ("", "", False, ""),
        ("mine@acme.com", "old@acme.com", False, "mine@acme.com"),  # never over a value
    ],
)
def test_work_email_prefill(work, email, verified, expected):
    assert (
        rules.work_email_prefill(work_email_value=work, account_email=email, account_email_verified=verified)
        == expected
    )


def test_linkedin_prefill():
    claims = {
        "given_name": " Nia ",
        "family_name": "Newman",
        "email": "Nia@Example.com",
        "headline": "CFO at Northwind",
        "picture": "https://x",
        "sub": "abc",
    }
    assert rules.linkedin_prefill(claims) == {
        "firstName": "Nia",
        "lastName": "Newman",
        "email": "nia@example.com",
        "jobTitle": "CFO at Northwind",
    }
    assert rules.linkedin_prefill({"jobTitle": "CFO", "headline": "ignored", "companyName": "Northwind"}) == {
        "jobTitle": "CFO",
        "companyName": "Northwind",
    }
    assert rules.linkedin_prefill(None) == {} and rules.linkedin_prefill({"given_name": 5}) == {}
