"""/api/account: password recovery (the spec's forgot-password, check-token and reset-password calls).

The pages post to these from the browser (assets/portal.js), so a password never
enters Reflex state. Errors answer as {errors: [{field, message, code?}]}.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any, TypeVar

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from portal.db import session_scope
from portal.domain import messages
from portal.http.account_routes import _errors, _text
from portal.http.client import SESSION_COOKIE, client_ip, is_same_origin
from portal.http.json_body import read_json_object
from portal.services.account_settings import change_password
from portal.services.errors import ServiceError, ThrottledError
from portal.services.password_reset import PasswordRulesError, check_token_throttled, request_reset, reset_password
from portal.settings import settings

log = logging.getLogger(__name__)
router = APIRouter(prefix="/api/account")
T = TypeVar("T")

# Forgot-password answers no sooner than this, known address or not, so timing tells nothing.
FORGOT_MIN_SECONDS = 0.4


def _error_response(err: ServiceError) -> JSONResponse:
    codes = getattr(err, "codes", {})
    items = [
        {"field": field, "message": message, **({"code": codes[field]} if field in codes else {})}
        for field, message in err.errors.items()
    ]
    return JSONResponse({"errors": items}, status_code=429 if isinstance(err, ThrottledError) else 400)


async def _in_transaction(fn: Callable[..., T], **kwargs: Any) -> T:
    """Run a service in a thread; a ServiceError still commits (recorded failures count)."""

    def work() -> T:
        with session_scope() as session:
            try:
                return fn(session=session, **kwargs)
            except ServiceError as err:
                failure = err
        raise failure

    return await asyncio.to_thread(work)


@router.post("/forgot-password")
async def forgot_password(request: Request) -> JSONResponse:
    if not is_same_origin(request):
        return _errors({"_global": messages.SOMETHING_WENT_WRONG}, 403)
    started = time.monotonic()
    body = await read_json_object(request)
    try:
        result = await _in_transaction(request_reset, email=_text(body, "email"), ip_address=client_ip(request))
        response = JSONResponse({"sent": True, "email": result.email, "minutes": result.minutes})
    except ServiceError as err:
        response = _error_response(err)
    except Exception:
        log.exception("forgot-password failed")
        response = _errors({"_global": messages.SOMETHING_WENT_WRONG}, 500)
    await asyncio.sleep(max(0.0, FORGOT_MIN_SECONDS - (time.monotonic() - started)))
    return response


@router.get("/reset-password/check-token")
async def check_token(request: Request) -> JSONResponse:
    try:
        await _in_transaction(
            check_token_throttled, token=request.query_params.get("token", ""), ip_address=client_ip(request)
        )
    except ServiceError as err:
        return _error_response(err)
    except Exception:
        log.exception("check-token failed")
        return _errors({"_global": messages.SOMETHING_WENT_WRONG}, 500)
    return JSONResponse({"valid": True})


@router.put("/reset-password")
async def put_reset_password(request: Request) -> JSONResponse:
    if not is_same_origin(request):
        return _errors({"_global": messages.SOMETHING_WENT_WRONG}, 403)
    body = await read_json_object(request)
    try:
        await _in_transaction(
            reset_password,
            token=_text(body, "token"),
            password=_text(body, "password"),
            confirm_password=_text(body, "confirmPassword"),
            ip_address=client_ip(request),
        )
    except (PasswordRulesError, ServiceError) as err:
        return _error_response(err)
    except Exception:
        log.exception("reset-password failed")
        return _errors({"_global": messages.SOMETHING_WENT_WRONG}, 500)
    # Every session of the account has ended; this browser's cookie is dead, so drop it too.
    response = JSONResponse({"redirect": "/sign-in"})
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="lax", secure=settings.cookie_secure)
    return response


@router.put("/password")
async def put_password(request: Request) -> JSONResponse:
    """Account settings' 'Change Password' (issue 40): the session cookie names the account; this session stays,
    every other one ends."""
    if not is_same_origin(request):
        return _errors({"_global": messages.SOMETHING_WENT_WRONG}, 403)
    body = await read_json_object(request)
    try:
        await _in_transaction(
            change_password,
            token=request.cookies.get(SESSION_COOKIE),
            current_password=_text(body, "currentPassword"),
            password=_text(body, "password"),
            confirm_password=_text(body, "confirmPassword"),
        )
    except (PasswordRulesError, ServiceError) as err:
        return _error_response(err)
    except Exception:
        log.exception("change-password failed")
        return _errors({"_global": messages.SOMETHING_WENT_WRONG}, 500)
    return JSONResponse({"ok": True})
