"""POST /webhooks/twilio/sms: a text a participant sent to the portal's number (issue 38), as Twilio posts it.

The X-Twilio-Signature is checked first with the SDK's RequestValidator (403 otherwise), over the portal's own
BASE_URL and the path, so a proxy in front changes nothing. STOP (and the carriers' other stop words) stops every
text to that number; START allows them again; any other text changes nothing. The answer is empty TwiML: the
portal sends no automatic reply (Twilio's own opt-out reply does that on a real number).
"""

from __future__ import annotations

import asyncio
from urllib.parse import parse_qsl

from fastapi import APIRouter, Request
from fastapi.responses import Response

from portal.db import session_scope
from portal.domain import sms_choice
from portal.services import sms
from portal.services.providers.sms import sms_provider
from portal.settings import settings

router = APIRouter()
MAX_BYTES = 16 * 1024
EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response></Response>'


def _plain(status: int, text: str) -> Response:
    return Response(text, status_code=status, media_type="text/plain")


@router.post(sms_choice.WEBHOOK_PATH)
async def incoming_text(request: Request) -> Response:
    provider = sms_provider()
    if provider is None:
        return _plain(404, "Texts are off on this portal.")
    body = await request.body()
    if len(body) > MAX_BYTES:
        return _plain(400, "Too large.")
    try:
        params = dict(parse_qsl(body.decode("utf-8"), keep_blank_values=True))
    except UnicodeDecodeError:
        return _plain(400, "Not a form.")
    url = f"{settings.base_url}{sms_choice.WEBHOOK_PATH}"
    signature = request.headers.get("x-twilio-signature", "")
    if not provider.valid_incoming(url=url, params=params, signature=signature):
        return _plain(403, "Signature not valid.")

    def work() -> str | None:
        with session_scope() as session:
            return sms.incoming(session, sender=params.get("From"), body=params.get("Body"))

    await asyncio.to_thread(work)
    return Response(EMPTY_TWIML, media_type="text/xml")
