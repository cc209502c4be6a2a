"""GET /api/account/verify-email?token=...: the link in a verification e-mail."""

from __future__ import annotations

import asyncio
import logging

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse

from portal.db import session_scope
from portal.domain.verification import after_link
from portal.services.verification import LinkOutcome, use_link

log = logging.getLogger(__name__)
router = APIRouter(prefix="/api/account")


@router.get("/verify-email")
async def verify_email(request: Request) -> RedirectResponse:
    token = request.query_params.get("token", "")

    def work() -> LinkOutcome:
        with session_scope() as session:
            return use_link(session=session, token=token)

    try:
        outcome = await asyncio.to_thread(work)
    except Exception:
        log.exception("verification link failed")
        outcome = LinkOutcome("invalid")
    return RedirectResponse(after_link(outcome.status, outcome.email, sign_up=outcome.sign_up), status_code=303)
