"""The work e-mail rule (spec section 5): required, syntax, free-mail and disposable domains."""

from __future__ import annotations

import pytest

from portal.domain import work_email as rules


@pytest.mark.parametrize(
    ("value", "error", "message"),
    [
        ("", rules.REQUIRED, "Work email is required"),
        ("   ", rules.REQUIRED, "Work email is required"),
        (None, rules.REQUIRED, "Work email is required"),
        (42, rules.REQUIRED, "Work email is required"),
        ("ann", rules.INVALID, "Please enter a valid email address"),
        ("ann@", rules.INVALID, "Please enter a valid email address"),
        ("@acme.com", rules.INVALID, "Please enter a valid email address"),
        ("ann@acme", rules.INVALID, "Please enter a valid email address"),
        ("ann smith@acme.com", rules.INVALID, "Please enter a valid email address"),
        ("ann@@acme.com", rules.INVALID, "Please enter a valid email address"),
        ("ann@acme..com", rules.INVALID, "Please enter a valid email address"),
        ("ann@host.test", rules.INVALID, "Please enter a valid email address"),  # special-use name
        ("a" * 310 + "@acme.com", rules.INVALID, "Please enter a valid email address"),
        (
            "ann@gmail.com",
            rules.FREE_MAIL,
            "Please use your work email. Addresses from free email providers such as gmail.com are not accepted.",
        ),
        (
            "Ann@GMAIL.com",
            rules.FREE_MAIL,
            "Please use your work email. Addresses from free email providers such as gmail.com are not accepted.",
        ),
        ("ann@outlook.com", rules.FREE_MAIL, None),
        ("ann@hotmail.co.uk", rules.FREE_MAIL, None),
        ("ann@yahoo.com", rules.FREE_MAIL, None),
        ("ann@icloud.com", rules.FREE_MAIL, None),
        ("ann@proton.me", rules.FREE_MAIL, None),
        ("ann@gmx.de", rules.FREE_MAIL, None),
        ("ann@tutanota.com", rules.FREE_MAIL, None),
        (
            "ann@mailinator.com",
            rules.DISPOSABLE,
            "Disposable email addresses are not accepted. Please use your work email.",
        ),
        ("ann@guerrillamail.com", rules.DISPOSABLE, None),
        ("ann@yopmail.com", rules.DISPOSABLE, None),
        ("ann@eu.mailinator.com", rules.DISPOSABLE, None),  # a subdomain of a listed domain
    ],
)
def test_refused_work_emails(value, error, message):
    check = rules.check_syntax_and_domain(value)
    assert check.valid is False
    assert check.error == error
    if message is not None:
        assert check.message == message
    assert rules.shown_message(check) == check.message


@pytest.mark.parametrize(
    ("value", "normalised"),
    [
        ("ann@acme.com", "ann@acme.com"),
        ("  Ann.Smith@Acme.COM ", "ann.smith@acme.com"),
        ("ann@northwind.example", "ann@northwind.example"),
        ("ann+panel@sub.acme.co.uk", "ann+panel@sub.acme.co.uk"),
        ("ann@bücher.de", "ann@bücher.de"),
        ("ann@gmail.company.com", "ann@gmail.company.com"),  # only the listed domain and its subdomains
    ],
)
def test_accepted_work_emails(value, normalised):
    check = rules.check_syntax_and_domain(value)
    assert check == rules.WorkEmailCheck(valid=True, error=None, message=None, value=normalised)
    assert rules.shown_message(check) == ""


def test_lists_are_real_and_hold_no_public_suffix():
    assert len(rules.free_domains()) > 4000
    assert len(rules.disposable_domains()) > 5000
    for suffix in ("com", "co.uk", "net", "org", "de", "example.com", "acme.com"):
        assert suffix not in rules.free_domains()
        assert suffix not in rules.disposable_domains()


@pytest.mark.parametrize(
    ("value", "worth"),
    [
        ("", False),
        (None, False),
        ("a@b.", False),
        ("a@b.c", True),
        ("ab@cd", False),
        ("abc.de", False),
        ("  a@b.  ", False),
        ("ann@acme.com", True),
        ("a.b@c", True),
    ],
)
def test_check_only_from_five_characters_with_at_and_dot(value, worth):
    assert rules.worth_checking(value) is worth


def test_constants_of_section_9():
    assert (rules.CHECK_MIN_LENGTH, rules.CHECK_DEBOUNCE_MS, rules.SUBMIT_WAIT_MS, rules.EMAIL_DUPLICATE_DELAY_MS) == (
        5,
        500,
        50,
        800,
    )


def test_required_error_is_preserved_when_an_answer_arrives():
    refused = rules.check_syntax_and_domain("ann@gmail.com")
    fine = rules.check_syntax_and_domain("ann@acme.com")
    assert rules.message_after_check("Work email is required", fine) == "Work email is required"
    assert rules.message_after_check("Work email is required", refused) == "Work email is required"
    assert rules.message_after_check("", refused) == refused.message
    assert rules.message_after_check(refused.message, fine) == ""
    assert rules.shown_message(rules.taken("X@Acme.com")) == "Email already exists"
    assert rules.taken("X@Acme.com").value == "x@acme.com"
