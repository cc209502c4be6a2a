"""/api/auth/{provider}/start and /callback: LinkedIn and Google through OpenID Connect (Authlib).

`state`, `nonce` and the PKCE `code_verifier` are made by Authlib and kept, with
the flow's flags and tracking data, in a signed, HttpOnly, short-lived cookie
(`portal_oauth`, path /api/auth) that only this sub-app reads: the callback is
accepted only in the browser that started the flow. Authlib verifies the ID
token (JWKS signature, iss, aud, nonce, exp); the account logic is in
`portal.services.oidc_accounts`.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import hmac
import logging

from authlib.integrations.starlette_client import OAuth, OAuthError
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.sessions import SessionMiddleware
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

from portal.db import session_scope
from portal.domain.oidc import PROVIDERS, Flow, error_destination, parse_flow
from portal.http.account_routes import set_challenge_cookie, set_session_cookie
from portal.http.client import SESSION_COOKIE, client_ip
from portal.services.captcha import CaptchaError, verify_captcha
from portal.services.oidc_accounts import ProviderLoginError, complete_login, login_from_claims
from portal.settings import settings

log = logging.getLogger(__name__)

PREFIX = "/api/auth"
FLOW_COOKIE = "portal_oauth"
FLOW_MAX_AGE = 600  # seconds a started flow may take
# Not a credential: tells the page which login method to mark 'Last used' (moved to localStorage by portal.js).
LOGIN_METHOD_COOKIE = "portal_login_method"

_CLIENT_KWARGS = {
    "linkedin": {
        "scope": "openid profile email",
        "code_challenge_method": "S256",
        "token_endpoint_auth_method": "client_secret_post",
    },
    "google": {"scope": "openid profile email", "code_challenge_method": "S256"},
}


@functools.cache
def oauth() -> OAuth:
    registry = OAuth()
    for provider in PROVIDERS:
        if settings.oidc_configured(provider):
            registry.register(
                name=provider,
                client_id=getattr(settings, f"{provider}_client_id"),
                client_secret=getattr(settings, f"{provider}_client_secret"),
                server_metadata_url=getattr(settings, f"{provider}_metadata_url"),
                client_kwargs=dict(_CLIENT_KWARGS[provider]),
            )
    return registry


def _client(provider: str):
    if provider not in PROVIDERS or not settings.oidc_configured(provider):
        return None
    return oauth().create_client(provider)


def redirect_uri(provider: str) -> str:
    return f"{settings.base_url}{PREFIX}/{provider}/callback"


def _go(url: str) -> RedirectResponse:
    return RedirectResponse(url, status_code=302)


async def start(request: Request) -> Response:
    provider = request.path_params["provider"]
    client = _client(provider)
    if client is None:
        return PlainTextResponse("Not found", status_code=404)
    flow = parse_flow(provider, request.query_params)
    if flow.sign_up:
        try:
            await asyncio.to_thread(
                verify_captcha, request.query_params.get("captchaToken"), action="sign_up", remote_ip=client_ip(request)
            )
        except CaptchaError:
            return _go(error_destination(flow, "captcha"))
    callback = redirect_uri(provider)
    try:
        rv = await client.create_authorization_url(callback)
    except Exception:  # the provider's discovery document is unreachable or broken
        log.exception("could not start the %s sign-in", provider)
        return _go(error_destination(flow, "failed"))
    data = {key: value for key, value in rv.items() if key != "url"}
    await client.save_authorize_data(request, redirect_uri=callback, flow=flow.to_dict(), **data)
    return _go(rv["url"])


async def callback(request: Request) -> Response:
    provider = request.path_params["provider"]
    client = _client(provider)
    if client is None:
        return PlainTextResponse("Not found", status_code=404)
    state = request.query_params.get("state") or ""
    stored = await client.framework.get_state_data(request.session, state) if state else None
    flow = Flow.from_dict(stored.get("flow")) if isinstance(stored, dict) else None
    if flow is None or flow.provider != provider:
        # Unknown, used, expired or another browser's state: refuse, and open nothing.
        log.warning("refused a %s callback with an unknown state", provider)
        return _go(error_destination(None, "state"))

    try:
        token = await client.authorize_access_token(request)
    except OAuthError as err:
        await client.framework.clear_state_data(request.session, state)
        log.info("%s sign-in ended by the provider: %s", provider, err.error)
        return _go(error_destination(flow, "denied" if err.error == "access_denied" else "failed"))
    except Exception as err:  # token exchange or ID token verification failed
        log.warning("%s sign-in failed: %s: %s", provider, type(err).__name__, err)
        return _go(error_destination(flow, "failed"))
    claims = token.get("userinfo")
    if not claims:
        log.warning("%s answered without an ID token", provider)
        return _go(error_destination(flow, "failed"))

    login = login_from_claims(provider, dict(claims))
    current_token = request.cookies.get(SESSION_COOKIE)

    def work():
        with session_scope() as session:
            return complete_login(
                session=session,
                login=login,
                flow=flow,
                current_token=current_token,
                linkedin_configured=settings.oidc_configured("linkedin"),
                user_agent=request.headers.get("user-agent", ""),
                ip_address=client_ip(request),
                # The local stand-in vouches for whoever its page was told: never for a staff account.
                staff_allowed=not settings.local_oidc_active,
            )

    try:
        outcome = await asyncio.to_thread(work)
    except ProviderLoginError:
        return _go(error_destination(flow, "failed"))
    except Exception:
        log.exception("%s sign-in could not be completed", provider)
        return _go(error_destination(flow, "failed"))

    response = _go(outcome.redirect)
    if outcome.challenge:  # two-factor sign-in: the code page next, no session yet
        set_challenge_cookie(response, outcome.challenge)
    if outcome.token:
        set_session_cookie(response, outcome.token)
        response.set_cookie(
            LOGIN_METHOD_COOKIE, provider, max_age=300, path="/", samesite="lax", secure=settings.cookie_secure
        )
    return response


def _flow_cookie_key() -> str:
    """A key of its own for the flow cookie, derived from SECRET_KEY."""
    return hmac.new(settings.secret_key.encode(), b"portal-oauth-flow-cookie", hashlib.sha256).hexdigest()


def build_app() -> Starlette:
    """The sub-app mounted at /api/auth; its session cookie exists only for these routes."""
    return Starlette(
        routes=[
            Route("/{provider}/start", start, methods=["GET"]),
            Route("/{provider}/callback", callback, methods=["GET"]),
        ],
        middleware=[
            Middleware(
                SessionMiddleware,
                secret_key=_flow_cookie_key(),
                session_cookie=FLOW_COOKIE,
                max_age=FLOW_MAX_AGE,
                path=PREFIX,
                same_site="lax",
                https_only=settings.cookie_secure,
            )
        ],
    )
