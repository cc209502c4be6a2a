"""The spec's password rules (portal/domain/password_policy.py), including the bad inputs."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from portal.domain import password_policy as policy
from portal.domain.password_policy import (
    CONFIRM_FIELD,
    CONFIRM_INVALID,
    PASSWORD_FIELD,
    PASSWORD_INVALID,
    PASSWORD_REQUIRED,
    PASSWORDS_DONT_MATCH,
    checklist,
    core,
    is_common,
    meets_requirements,
    validate,
)
from portal.domain.password_reset import link_usable

GOOD = "Blue-Tulip-Harbor-9"


def statuses(password: str) -> dict[str, str]:
    return {item.key: item.status for item in checklist(password)}


# --- the spec's strings and constants ------------------------------------------------------


def test_spec_messages_and_limits():
    assert PASSWORD_REQUIRED == "Password is required"
    assert PASSWORD_INVALID == "Password does not meet all requirements"
    assert CONFIRM_INVALID == "Confirm password does not meet all requirements"
    assert PASSWORDS_DONT_MATCH == "Passwords don't match"
    assert (policy.MIN_LENGTH, policy.PASSPHRASE_LENGTH, policy.MAX_LENGTH) == (12, 30, 255)
    assert policy.SPECIAL_CHARACTERS == '!@#$%^&*(),.?":{}|<>_-'


def test_checklist_items_in_display_order_with_labels():
    items = checklist("")
    assert [i.key for i in items] == ["length", "lowercase", "uppercase", "digit", "special", "common", "passphrase"]
    assert all(i.label for i in items)
    assert items[0].label == "12 to 255 characters"
    assert all(i.status == "unmet" and not i.met for i in items)


# --- length --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("password", "ok"),
    [
        ("Abcdefg1!xy", False),  # 11
        ("Abcdefg1!xyz", True),  # 12
        ("Abcdefg1!xyz" + "q" * 17, True),  # 29
        ("Abcdefg1!xyz" + "q" * 18, True),  # 30
        ("Abcdefg1!" + "q" * 246, True),  # 255
        ("Abcdefg1!" + "q" * 247, False),  # 256
    ],
    ids=["11", "12", "29", "30", "255", "256"],
)
def test_length_limits(password, ok):
    assert meets_requirements(password) is ok
    assert (statuses(password)["length"] == "met") is ok


def test_passphrase_line_turns_on_at_30():
    assert statuses("q" * 29)["passphrase"] == "unmet"
    assert statuses("q" * 30)["passphrase"] == "met"


# --- character classes ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("password", "missing"),
    [
        ("HARBOR-TULIP-9", "lowercase"),
        ("harbor-tulip-9", "uppercase"),
        ("Harbor-Tulip-X", "digit"),
        ("HarborTulip99", "special"),
    ],
)
def test_each_missing_class_fails_and_is_named(password, missing):
    assert not meets_requirements(password)
    result = statuses(password)
    assert result[missing] == "unmet"
    assert [k for k, v in result.items() if v == "unmet"] == [missing, "passphrase"]


@pytest.mark.parametrize("special", list(policy.SPECIAL_CHARACTERS))
def test_every_listed_special_character_counts(special):
    assert meets_requirements(f"Harbor{special}Tulip42")


@pytest.mark.parametrize("other", ["~", "`", "'", "[", "]", "+", "=", "/", "\\", ";", "€", " "])
def test_characters_outside_the_list_are_not_special(other):
    assert not policy.has_special(f"Harbor{other}Tulip42")
    assert not meets_requirements(f"Harbor{other}Tulip42")


def test_all_rules_met():
    assert all(item.status == "met" for item in checklist(GOOD) if item.key != "passphrase")
    assert meets_requirements(GOOD)


# --- trimming ------------------------------------------------------------------------------


def test_surrounding_spaces_are_removed_before_counting():
    assert policy.normalize("  Abcdefg1!xyz \t") == "Abcdefg1!xyz"
    assert meets_requirements("   Abcdefg1!xyz   ")
    # 11 characters plus spaces is still 11.
    assert not meets_requirements("  Abcdefg1!xy  ")


def test_only_spaces_is_required():
    assert validate("     ", "     ") == {PASSWORD_FIELD: PASSWORD_REQUIRED, CONFIRM_FIELD: PASSWORD_REQUIRED}


def test_inner_spaces_are_kept_and_count():
    assert len(policy.normalize("Blue Tulip 9!")) == 13
    assert meets_requirements("Blue Tulip 9!")


def test_confirmation_is_compared_after_trimming():
    assert validate(GOOD, f"  {GOOD}  ") == {}


# --- unicode -------------------------------------------------------------------------------


def test_unicode_letters_count_as_lower_and_upper():
    assert meets_requirements("Ñandú-Éclair-42")
    assert statuses("ÉÑÜ-42-ÀÖ-ÅÆØ")["lowercase"] == "unmet"
    assert statuses("éñü-42-àö-åæø")["uppercase"] == "unmet"


def test_unicode_decimal_digits_count_and_length_is_in_characters():
    assert policy.has_digit("٣")  # Arabic-Indic three
    assert not policy.has_digit("²")  # superscript two is not a decimal digit
    emoji = "Ключ-Пароль-🔑1"  # 14 characters, more bytes
    assert len(emoji) == 14 and meets_requirements(emoji)


def test_non_string_like_none_is_required():
    assert validate(None, None) == {PASSWORD_FIELD: PASSWORD_REQUIRED, CONFIRM_FIELD: PASSWORD_REQUIRED}


# --- common passwords ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "password",
    [
        "Password123!",
        "Welcome2024!",
        "Qwerty123456!",
        "P@ssw0rd1234!",
        "PASSWORD123!",
        "Iloveyou2023!",
        "Summer2025!!",
        "!Letmein12345",
    ],
)
def test_common_passwords_are_refused(password):
    assert is_common(password)
    assert statuses(password)["common"] == "unmet"
    assert not meets_requirements(password)
    assert validate(password, password)[PASSWORD_FIELD] == PASSWORD_INVALID


def test_core_reads_look_alikes_and_drops_decorations():
    assert core("P@ssw0rd1234!") == "password"
    assert core("Welcome2024!") == "welcome"
    assert core("1qaz2wsx") == "qazwsx"
    assert core("Blue-Tulip-Harbor-9") == "bluetulipharbor"


def test_uncommon_passwords_pass_the_common_check():
    for password in (GOOD, "Correct-Horse-42!", "Xk9!mQ2#vL8p", "Reviewer-Bright-7"):
        assert not is_common(password), password


def test_common_data_file_is_big_enough_and_lowercase():
    lines = [l for l in policy.COMMON_PASSWORDS_FILE.read_text().splitlines() if l and not l.startswith("#")]
    assert len(lines) >= 500
    assert all(l == l.lower() for l in lines)
    assert {"password123!", "welcome2024!", "qwerty123456!"} <= set(lines)


def test_common_check_also_applies_to_passphrases():
    famous = "correct horse battery staple!!!"  # 31 characters
    assert policy.is_passphrase(famous)
    assert is_common(famous)
    assert not meets_requirements(famous)


# --- passphrase bypass ---------------------------------------------------------------------


def test_passphrase_of_30_bypasses_the_class_rules():
    phrase = "we walked along the quiet river"  # 31, lowercase and spaces only
    result = statuses(phrase)
    assert result["uppercase"] == result["digit"] == result["special"] == "waived"
    assert result["lowercase"] == "met"
    assert meets_requirements(phrase)


def test_29_characters_lowercase_is_not_a_passphrase():
    phrase = "we walked along the quiet riv"  # 29
    assert len(phrase) == 29
    assert not meets_requirements(phrase)
    assert statuses(phrase)["uppercase"] == "unmet"


def test_passphrase_still_limited_to_255():
    assert not meets_requirements("walking along the river " * 11)  # 264 characters
    assert statuses("walking along the river " * 11)["uppercase"] == "unmet"


def test_passphrase_counts_after_trimming():
    assert not meets_requirements("   we walked along the quiet r   ")  # 27 inside


# --- the form verdict ----------------------------------------------------------------------


def test_valid_pair_has_no_errors():
    assert validate(GOOD, GOOD) == {}


def test_mismatch_gives_passwords_dont_match_under_confirmation():
    assert validate(GOOD, "Blue-Tulip-Harbor-8") == {CONFIRM_FIELD: PASSWORDS_DONT_MATCH}


def test_confirmation_failing_rules_says_so_before_mismatch():
    assert validate(GOOD, "short") == {CONFIRM_FIELD: CONFIRM_INVALID}


def test_weak_password_and_empty_confirmation():
    assert validate("short", "") == {PASSWORD_FIELD: PASSWORD_INVALID, CONFIRM_FIELD: PASSWORD_REQUIRED}


def test_empty_password_with_a_valid_confirmation():
    assert validate("", GOOD) == {PASSWORD_FIELD: PASSWORD_REQUIRED}


def test_case_matters_for_the_match():
    assert validate(GOOD, GOOD.lower().replace("b", "B", 1)) == {CONFIRM_FIELD: PASSWORDS_DONT_MATCH}


# --- reset links ---------------------------------------------------------------------------

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("created", "expires", "used", "changed", "ok"),
    [
        (NOW - timedelta(minutes=5), NOW + timedelta(minutes=55), None, None, True),
        (NOW - timedelta(minutes=60), NOW, None, None, False),  # expired at this instant
        (NOW - timedelta(minutes=5), NOW + timedelta(minutes=55), NOW - timedelta(minutes=1), None, False),  # used
        (
            NOW - timedelta(minutes=5),
            NOW + timedelta(minutes=55),
            None,
            NOW - timedelta(minutes=1),
            False,
        ),  # password changed since
        (
            NOW - timedelta(minutes=5),
            NOW + timedelta(minutes=55),
            None,
            NOW - timedelta(days=3),
            True,
        ),  # changed long before
    ],
    ids=["fresh", "expired", "used", "changed-after-issue", "changed-before-issue"],
)
def test_reset_link_usable(created, expires, used, changed, ok):
    assert link_usable(created_at=created, expires_at=expires, used_at=used, password_changed_at=changed, now=NOW) is ok
