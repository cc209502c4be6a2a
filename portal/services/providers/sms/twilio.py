"""Texts through Twilio's official SDK (twilio-python): Messages to send, the RequestValidator for incoming texts.

The SDK is pointed at `api_url` (Twilio's API, or its local stand-in at /local-sms on a `make run`) through its
own domain's base URL; nothing else of it is changed.
"""

from __future__ import annotations

from collections.abc import Mapping

from twilio.base.exceptions import TwilioException, TwilioRestException
from twilio.http.http_client import TwilioHttpClient
from twilio.request_validator import RequestValidator
from twilio.rest import Client

from portal.services.providers.sms.base import SmsError

# Twilio's errors that another try will not mend: a bad 'To', a number that replied STOP, not a mobile, blocked.
PERMANENT_CODES = frozenset({21211, 21214, 21408, 21610, 21612, 21614, 30003, 30004, 30005, 30006})


class TwilioSms:
    def __init__(self, *, account_sid: str, auth_token: str, sender: str, api_url: str, timeout: float = 10) -> None:
        self.sender = sender
        self.auth_token = auth_token
        self.client = Client(account_sid, auth_token, http_client=TwilioHttpClient(timeout=timeout))
        self.client.api.base_url = api_url

    def send(self, *, to: str, body: str) -> str:
        sender = {"messaging_service_sid": self.sender} if self.sender.startswith("MG") else {"from_": self.sender}
        try:
            message = self.client.messages.create(to=to, body=body, **sender)
        except TwilioRestException as err:
            permanent = err.code in PERMANENT_CODES or err.status in (400, 404)
            raise SmsError(f"Twilio {err.status} ({err.code}): {err.msg}", permanent=permanent) from None
        except (TwilioException, OSError) as err:
            raise SmsError(f"Twilio could not be reached: {err}") from None
        except Exception as err:  # requests' connection errors and time-outs: try again later
            raise SmsError(f"Twilio could not be reached: {err.__class__.__name__}") from None
        return str(message.sid or "")

    def valid_incoming(self, *, url: str, params: Mapping[str, str], signature: str) -> bool:
        if not signature:
            return False
        return bool(RequestValidator(self.auth_token).validate(url, dict(params), signature))
