"""POST /webhooks/{provider}: the payout provider's webhooks (issue 37). The body is read raw (at most 64 KB) and
checked by the provider's signature before anything else; a forged or malformed one answers 401 and changes nothing,
a replay 200 and changes nothing (portal/services/payout_runner.receive_webhook)."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from portal.http.json_body import read_body
from portal.services import payout_runner
from portal.services.providers.payouts import payout_provider

router = APIRouter()


@router.post("/webhooks/tremendous", include_in_schema=False)
async def tremendous_webhook(request: Request) -> JSONResponse:
    provider = payout_provider()
    if provider.name != "tremendous":
        return JSONResponse({"errors": [{"field": "_global", "message": "Not found."}]}, status_code=404)
    body = await read_body(request)
    headers = {k.lower(): v for k, v in request.headers.items()}
    status = await asyncio.to_thread(payout_runner.receive_webhook, body, headers, provider=provider)
    if status == 401:
        return JSONResponse(
            {"errors": [{"field": "_global", "message": "The signature is not valid."}]}, status_code=401
        )
    return JSONResponse({"received": True}, status_code=status)
