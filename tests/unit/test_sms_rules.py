"""The rules of texts (issue 38, item 2): phone numbers, codes, stop words, limits and the texts' wording."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from portal.domain import sms as rules
from portal.domain import sms_choice
from portal.domain.throttling import longest_wait


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("+1 415 555 0100", "+14155550100"),
        ("+1 (415) 555-0100", "+14155550100"),
        ("0044 7400 123456", "+447400123456"),
        ("  +447400123456 ", "+447400123456"),
    ],
)
def test_a_mobile_number_with_its_country_code_is_kept_in_e164(raw, expected):
    assert rules.normalize_phone(raw) == (expected, None)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("", rules.PHONE_REQUIRED),
        ("   ", rules.PHONE_REQUIRED),
        (None, rules.PHONE_REQUIRED),
        (14155550100, rules.PHONE_REQUIRED),
        ("4155550100", rules.PHONE_INVALID),  # no country code
        ("+1 555", rules.PHONE_INVALID),
        ("+44 20 7946 0018", rules.PHONE_INVALID),  # a London landline: not a mobile
        ("+1" + "5" * 40, rules.PHONE_INVALID),
        ("+1 415 555 01OO", rules.PHONE_INVALID),
    ],
)
def test_a_number_that_cannot_get_texts_gets_its_message(raw, message):
    assert rules.normalize_phone(raw) == (None, message)


def test_display_and_masked_numbers():
    assert rules.display_phone("+14155550100") == "+1 415-555-0100"
    assert rules.display_phone("not a number") == "not a number"
    assert rules.masked("+14155550100") == "+1 •••0100"


@pytest.mark.parametrize(("raw", "code"), [("123456", "123456"), (" 123 456 ", "123456"), ("000000", "000000")])
def test_a_code_of_six_digits_is_taken_spaces_removed(raw, code):
    assert rules.code_shape_ok(raw) == code


@pytest.mark.parametrize("raw", ["12345", "1234567", "12a456", "١٢٣٤٥٦", "", None, 123456, ["123456"]])
def test_anything_else_is_not_a_code(raw):
    assert rules.code_shape_ok(raw) is None


def test_a_code_is_stored_as_an_hmac_bound_to_the_account():
    one = rules.code_hash("secret", 1, "123456")
    assert len(one) == 64 and "123456" not in one
    assert one == rules.code_hash("secret", 1, "123456")
    assert one != rules.code_hash("secret", 2, "123456")
    assert one != rules.code_hash("other", 1, "123456")


@pytest.mark.parametrize(
    ("body", "word"),
    [
        ("STOP", "stop"),
        ("stop", "stop"),
        (" Stop. ", "stop"),
        ("unsubscribe me", "stop"),
        ("CANCEL", "stop"),
        ("start", "start"),
        ("UNSTOP", "start"),
        ("Yes!", "start"),
        ("please stop", None),
        ("hello", None),
        ("", None),
        (None, None),
    ],
)
def test_stop_and_start_words_are_read_from_the_first_word(body, word):
    assert rules.keyword(body) == word


def test_code_limits_one_a_minute_and_five_an_hour_per_account_five_an_hour_per_number():
    now = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
    limits = rules.code_limits(7, "+14155550100")
    assert longest_wait({}, limits, now=now) == 0
    assert longest_wait({"account:7": [now - timedelta(seconds=15)]}, limits, now=now) == 45
    assert longest_wait({"account:7": [now - timedelta(seconds=61)]}, limits, now=now) == 0
    five = [now - timedelta(minutes=m) for m in (50, 40, 30, 20, 10)]
    assert longest_wait({"account:7": five}, limits, now=now) == 10 * 60
    assert longest_wait({"phone:+14155550100": five}, limits, now=now) == 10 * 60
    assert longest_wait({"account:8": five, "phone:+15555550100": five}, limits, now=now) == 0


def test_wait_text_in_seconds_then_minutes():
    assert rules.wait_text(45) == "Please wait 45 seconds before asking for another code."
    assert rules.wait_text(119) == "Please wait 119 seconds before asking for another code."
    assert rules.wait_text(121) == "Please wait 3 minutes before asking for another code."


def test_a_notification_as_a_text_keeps_its_link_and_the_stop_line_within_two_segments():
    text = rules.notification_text("Portal", "A new paid test for you: Survey, $25", "http://x.test/test/1/rate")
    assert text == "Portal: A new paid test for you: Survey, $25 http://x.test/test/1/rate Reply STOP to stop texts."
    long = rules.notification_text("Portal", "word " * 200, "http://x.test/" + "a" * 40)
    assert len(long) <= rules.SMS_MAX_CHARS
    assert long.endswith("http://x.test/" + "a" * 40 + " Reply STOP to stop texts.") and "…" in long
    assert rules.notification_text("Portal", "Hi", None) == "Portal: Hi Reply STOP to stop texts."
    assert "123456" in rules.code_text("Portal", "123456")


@pytest.mark.parametrize(
    ("mode", "sid", "base", "choice"),
    [
        ("auto", "", "http://localhost:3000", sms_choice.Choice("twilio", True)),
        ("auto", "AC1", "https://portal.example", sms_choice.Choice("twilio", False)),
        ("auto", "", "https://portal.example", sms_choice.Choice("off", False)),
        ("off", "AC1", "http://localhost:3000", sms_choice.Choice("off", False)),
        ("TWILIO", "", "http://127.0.0.1:3000", sms_choice.Choice("twilio", True)),
    ],
)
def test_which_sms_provider(mode, sid, base, choice):
    assert sms_choice.choose(mode, sid, base) == choice


def test_twilio_without_an_account_off_loopback_or_an_unknown_mode_is_refused():
    with pytest.raises(sms_choice.SmsSettingRefused):
        sms_choice.choose("twilio", "", "https://portal.example")
    with pytest.raises(sms_choice.SmsSettingRefused):
        sms_choice.choose("carrier-pigeon", "", "http://localhost:3000")
