"""/api/account/two-factor: the second step of a sign-in with two-factor sign-in on (issue 40, item 1).

The sign-in (password, or the LinkedIn/Google return) left a challenge in the HttpOnly portal_2fa cookie and sent the
browser to /two-factor; the page posts the code here, and a right one opens the session (the session cookie set, the
challenge cookie cleared). Wrong codes are counted per challenge; a dead challenge sends the person to sign in again.
"""

from __future__ import annotations

import logging

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from portal.domain import messages
from portal.domain import two_factor as rules
from portal.domain.navigation import SIGN_IN_PATH, safe_return_path
from portal.http.account_routes import _errors, _text, set_session_cookie
from portal.http.client import SESSION_COOKIE, client_ip, is_same_origin
from portal.http.json_body import read_json_object
from portal.http.password_routes import _error_response, _in_transaction
from portal.services.errors import ServiceError
from portal.services.sessions import revoke_session
from portal.services.two_factor import ChallengeExpired, complete_challenge
from portal.settings import settings

log = logging.getLogger(__name__)
router = APIRouter(prefix="/api/account")


def _clear_challenge(response: JSONResponse) -> None:
    response.delete_cookie(rules.COOKIE, path="/", httponly=True, samesite="lax", secure=settings.cookie_secure)


@router.post("/two-factor")
async def two_factor(request: Request) -> JSONResponse:
    if not is_same_origin(request):
        return _errors({"_global": messages.SOMETHING_WENT_WRONG}, 403)
    body = await read_json_object(request)
    old_token = request.cookies.get(SESSION_COOKIE)

    def work(session, **kwargs):
        passed = complete_challenge(session, **kwargs)
        if old_token:  # a sign-in never reuses an earlier session
            revoke_session(session=session, token=old_token)
        return passed

    try:
        passed = await _in_transaction(
            work,
            challenge=request.cookies.get(rules.COOKIE),
            code=body.get("code"),
            user_agent=request.headers.get("user-agent", ""),
            ip_address=client_ip(request),
        )
    except ChallengeExpired as err:
        response = JSONResponse(
            {"errors": [{"field": "_global", "message": err.message}], "redirect": SIGN_IN_PATH}, status_code=400
        )
        _clear_challenge(response)
        return response
    except ServiceError as err:
        return _error_response(err)
    except Exception:
        log.exception("two-factor sign-in failed")
        return _errors({"_global": messages.SOMETHING_WENT_WRONG}, 500)
    response = JSONResponse({"redirect": safe_return_path(_text(body, "to"))})
    set_session_cookie(response, passed.token)
    _clear_challenge(response)
    return response
