"""Which SMS provider the portal uses, and when Twilio's local stand-in runs: the rule, with no I/O (issue 38).

SMS_PROVIDER: 'auto' (default): Twilio when TWILIO_ACCOUNT_SID is set; else, on a loopback BASE_URL, Twilio's
local stand-in (portal/standins/twilio, mounted at /local-sms), so that `make run` on a fresh clone confirms a
phone and texts an invite; else no texts (the notifications page says so). 'twilio': Twilio (the stand-in on a
loopback BASE_URL without an account; anywhere else the account is required: the portal refuses to start).
'off': never a text. The stand-in follows the payout stand-in's rule (portal/domain/payout_choice.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from portal.domain.local_oidc import is_loopback

MODES = ("auto", "twilio", "off")
TWILIO, OFF = "twilio", "off"
PREFIX = "/local-sms"
WEBHOOK_PATH = "/webhooks/twilio/sms"  # incoming texts (STOP, START), signed by Twilio
TWILIO_API = "https://api.twilio.com"


class SmsSettingRefused(ValueError):
    """SMS_PROVIDER names something that cannot run here."""


@dataclass(frozen=True)
class Choice:
    provider: str  # "twilio" | "off"
    standin: bool  # Twilio is the local stand-in


def choose(mode: str, account_sid: str, base_url: str) -> Choice:
    """The provider for SMS_PROVIDER `mode`, a TWILIO_ACCOUNT_SID (or ''), and BASE_URL."""
    mode = (mode or "auto").strip().lower()
    if mode not in MODES:
        raise SmsSettingRefused(f"SMS_PROVIDER must be one of {', '.join(MODES)}, not {mode!r}.")
    if mode == OFF:
        return Choice(OFF, False)
    if account_sid:
        return Choice(TWILIO, False)
    if is_loopback(base_url):
        return Choice(TWILIO, True)
    if mode == TWILIO:
        raise SmsSettingRefused(
            "SMS_PROVIDER=twilio needs TWILIO_ACCOUNT_SID: the local Twilio stand-in only runs on a loopback "
            f"BASE_URL (localhost), not on {base_url}."
        )
    return Choice(OFF, False)
