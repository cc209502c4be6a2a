"""The SMS provider (issue 38): Twilio through its SDK (or its local stand-in, portal/standins/twilio), when the
settings choose one (SMS_PROVIDER, portal/domain/sms_choice.py); None when texts are off."""

from __future__ import annotations

import functools

from portal.services.providers.sms.base import SmsError, SmsProvider
from portal.services.providers.sms.twilio import TwilioSms
from portal.settings import Settings, settings


def build(config: Settings) -> SmsProvider | None:
    if not config.sms_active:
        return None
    return TwilioSms(
        account_sid=config.twilio_account_sid,
        auth_token=config.twilio_auth_token,
        sender=config.twilio_from,
        api_url=config.twilio_api_url,
    )


@functools.cache
def sms_provider() -> SmsProvider | None:
    """The portal's SMS provider (from settings), built once; None when texts are off."""
    return build(settings)


__all__ = ["SmsError", "SmsProvider", "TwilioSms", "build", "sms_provider"]
