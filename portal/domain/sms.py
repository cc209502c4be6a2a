"""Text messages, opt-in (issue 38, item 2): the rules, with no I/O.

A participant adds a phone number, confirms it with a code sent by text, and chooses which notifications
(portal/domain/notifications.py KINDS) also come as a text. A reply of STOP (or another of the carriers' stop
words) stops every text to that number until START or a new confirmation; the code's sending is rate-limited per
account and per number.
"""

from __future__ import annotations

import hashlib
import hmac
import math
from datetime import timedelta

import phonenumbers

from portal.domain.throttling import Limit

CODE_DIGITS = 6
CODE_LIFETIME = timedelta(minutes=10)
CODE_MAX_TRIES = 5  # wrong codes before a new one must be sent
# Codes sent: one a minute and five an hour per account; five an hour to one number, whoever asks.
CODE_EVERY_SECONDS = 60
CODE_PER_HOUR = 5
SMS_MAX_CHARS = 320  # two segments at most
BODY_MAX = 1600  # the longest text Twilio accepts
SEND_MAX_ATTEMPTS = 6  # tries of one text before it is given up (backoff: portal/domain/mail_retry.py)

# The carriers' and Twilio's stop and start words (Twilio's "Advanced Opt-Out" defaults).
STOP_WORDS = frozenset({"STOP", "STOPALL", "UNSUBSCRIBE", "CANCEL", "END", "QUIT", "REVOKE", "OPTOUT"})
START_WORDS = frozenset({"START", "UNSTOP", "YES"})

CODE_KIND = "code"  # the outbox_sms kind of a confirmation code (the others are notification kinds)

# What a participant reads.
PHONE_REQUIRED = "Enter your mobile phone number."
PHONE_INVALID = "Enter a mobile number with its country code, for example +1 415 555 0100."
CODE_INVALID = "Enter the 6-digit code from the text we sent you."
CODE_WRONG = "That code is not right. Check the latest text we sent you."
CODE_EXPIRED = "This code has expired. Send a new code."
CODE_TOO_MANY = "Too many wrong codes. Send a new code."
NO_CODE = "Send a code to your phone first."
NOT_CONFIRMED = "Confirm your phone number first, then choose what comes as a text."
UNAVAILABLE = "Text messages are not available on this portal yet."
CODE_SENT = "We sent a code to {phone}. It works for 10 minutes."
CONFIRMED = "Your phone number is confirmed."
REMOVED = "Your phone number was removed: we will not text you."
STOPPED = "You replied STOP, so we send you no texts. Confirm your number again to get them."


def wait_text(seconds: int) -> str:
    """'Please wait 45 seconds before asking for another code.' (minutes from two minutes on)."""
    if seconds < 120:
        return f"Please wait {seconds} seconds before asking for another code."
    return f"Please wait {math.ceil(seconds / 60)} minutes before asking for another code."


def normalize_phone(raw: object) -> tuple[str | None, str | None]:
    """(the number in E.164, None) or (None, the message). A number needs its country code (+...)."""
    if not isinstance(raw, str) or not raw.strip():
        return None, PHONE_REQUIRED
    text = raw.strip()
    if len(text) > 32 or not text.startswith(("+", "00")):
        return None, PHONE_INVALID
    if text.startswith("00"):
        text = "+" + text[2:]
    try:
        number = phonenumbers.parse(text, None)
    except phonenumbers.NumberParseException:
        return None, PHONE_INVALID
    if not phonenumbers.is_valid_number(number):
        return None, PHONE_INVALID
    if phonenumbers.number_type(number) not in (
        phonenumbers.PhoneNumberType.MOBILE,
        phonenumbers.PhoneNumberType.FIXED_LINE_OR_MOBILE,
    ):
        return None, PHONE_INVALID
    return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164), None


def display_phone(e164: str) -> str:
    """'+1 415-555-0100' for a stored number (as given when it does not parse)."""
    try:
        return phonenumbers.format_number(phonenumbers.parse(e164, None), phonenumbers.PhoneNumberFormat.INTERNATIONAL)
    except phonenumbers.NumberParseException:
        return e164


def masked(e164: str) -> str:
    """'+1 •••0100': the number shown where others may look (only its last four digits)."""
    return e164[:2] + " •••" + e164[-4:] if len(e164) > 6 else e164


def code_shape_ok(raw: object) -> str | None:
    """The code as typed, spaces removed, when it has the code's shape; else None."""
    if not isinstance(raw, str):
        return None
    code = "".join(raw.split())
    return code if len(code) == CODE_DIGITS and code.isascii() and code.isdigit() else None


def code_hash(secret: str, account_id: int, code: str) -> str:
    """What is stored of a code: an HMAC with the portal's secret, bound to the account."""
    return hmac.new(secret.encode(), f"sms-code:{account_id}:{code}".encode(), hashlib.sha256).hexdigest()


def code_limits(account_id: int, phone: str) -> tuple[Limit, ...]:
    """The limits on sending a code, as throttling Limits over the codes already sent."""
    return (
        Limit(f"account:{account_id}", 1, CODE_EVERY_SECONDS),
        Limit(f"account:{account_id}", CODE_PER_HOUR, 3600),
        Limit(f"phone:{phone}", CODE_PER_HOUR, 3600),
    )


def keyword(body: object) -> str | None:
    """'stop', 'start' or None for an incoming text (the first word, any case, punctuation around it ignored)."""
    if not isinstance(body, str):
        return None
    words = body.strip().split()
    if not words:
        return None
    word = words[0].strip(".!,;:").upper()
    if word in STOP_WORDS:
        return "stop"
    if word in START_WORDS:
        return "start"
    return None


def code_text(brand: str, code: str) -> str:
    return f"{brand}: your code is {code}. It works for 10 minutes. If you did not ask for it, ignore this text."


def notification_text(brand: str, subject: str, link: str | None) -> str:
    """A notification as a text: the e-mail's subject, its link, and how to stop texts (at most SMS_MAX_CHARS)."""
    tail = " Reply STOP to stop texts."
    link_part = f" {link}" if link else ""
    room = SMS_MAX_CHARS - len(tail) - len(link_part) - len(brand) - 2
    words = subject if len(subject) <= room else subject[: max(room - 1, 0)].rstrip() + "…"
    return f"{brand}: {words}{link_part}{tail}"
