"""/api/account: password sign-in (sets the HttpOnly session cookie) and sign-out (revokes it)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from portal.db import session_scope
from portal.domain import messages
from portal.domain import two_factor as two_factor_rules
from portal.domain.navigation import after_password_sign_in
from portal.http.client import SESSION_COOKIE, client_ip, is_same_origin
from portal.http.json_body import read_json_object
from portal.services.captcha import verify_captcha
from portal.services.errors import ServiceError, ThrottledError
from portal.services.sessions import revoke_session
from portal.services.sign_in import sign_in_with_password
from portal.services.two_factor import two_factor_path
from portal.settings import settings

log = logging.getLogger(__name__)
router = APIRouter(prefix="/api/account")


def _errors(errors: dict[str, str], status: int) -> JSONResponse:
    return JSONResponse({"errors": [{"field": k, "message": v} for k, v in errors.items()]}, status_code=status)


def set_session_cookie(response: Response, token: str) -> None:
    response.set_cookie(
        SESSION_COOKIE,
        token,
        max_age=settings.session_absolute_days * 86400,
        httponly=True,
        samesite="lax",
        secure=settings.cookie_secure,
        path="/",
    )


def set_challenge_cookie(response: Response, challenge: str) -> None:
    """The second step of a two-factor sign-in: HttpOnly, for as long as the challenge lives."""
    response.set_cookie(
        two_factor_rules.COOKIE,
        challenge,
        max_age=two_factor_rules.CHALLENGE_MINUTES * 60,
        httponly=True,
        samesite="lax",
        secure=settings.cookie_secure,
        path="/",
    )


def _text(body: dict[str, Any], key: str) -> str:
    value = body.get(key)
    return value if isinstance(value, str) else ""


@router.post("/sign-in")
async def sign_in(request: Request) -> JSONResponse:
    if not is_same_origin(request):
        return _errors({"_global": messages.SOMETHING_WENT_WRONG}, 403)
    body = await read_json_object(request)
    email, password = _text(body, "email"), _text(body, "password")
    old_token = request.cookies.get(SESSION_COOKIE)

    def work():
        with session_scope() as session:
            try:
                # The captcha token is spent in this same transaction (one writer on SQLite).
                verify_captcha(
                    _text(body, "captchaToken"), action="sign_in", remote_ip=client_ip(request), session=session
                )
                result = sign_in_with_password(
                    session=session,
                    email=email,
                    password=password,
                    ip_address=client_ip(request),
                    user_agent=request.headers.get("user-agent", ""),
                )
            except ServiceError as err:
                failure = err  # leave the block normally so the recorded failure is committed
            else:
                if old_token:  # rotate: a sign-in never reuses an earlier session
                    revoke_session(session=session, token=old_token)
                return result
        raise failure

    try:
        result = await asyncio.to_thread(work)
    except ServiceError as err:
        return _errors(err.errors, 429 if isinstance(err, ThrottledError) else 400)
    except Exception:  # never a stack trace to the user
        log.exception("sign-in failed")
        return _errors({"_global": messages.SOMETHING_WENT_WRONG}, 500)

    target = after_password_sign_in(
        to=_text(body, "to"),
        registration_complete=result.is_registration_complete,
        email_verified=result.is_email_verified,
    )
    if result.challenge:  # two-factor sign-in: the code first, then the session (http/two_factor_routes.py)
        response = JSONResponse({"redirect": two_factor_path(target), "method": "email"})
        set_challenge_cookie(response, result.challenge)
        return response
    response = JSONResponse({"redirect": target, "method": "email"})
    set_session_cookie(response, result.token)
    return response


@router.post("/logout")
async def logout(request: Request) -> JSONResponse:
    if not is_same_origin(request):
        return _errors({"_global": messages.SOMETHING_WENT_WRONG}, 403)
    token = request.cookies.get(SESSION_COOKIE)

    def work():
        with session_scope() as session:
            revoke_session(session=session, token=token)

    try:
        await asyncio.to_thread(work)
    except Exception:
        log.exception("logout failed")
    response = JSONResponse({"redirect": "/sign-in"})
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="lax", secure=settings.cookie_secure)
    return response
