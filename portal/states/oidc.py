"""States of the LinkedIn/Google screens: query-driven variants, LinkedIn connect, verify account."""

from __future__ import annotations

import json
import logging

import reflex as rx
from reflex.vars import StringVar
from reflex_base.event import EventSpec

from portal import db
from portal.domain.navigation import safe_return_path
from portal.domain.oidc import (
    ACCOUNT_DOES_NOT_EXIST,
    AUTH_ERROR_PARAM,
    AUTH_ERRORS,
    NO_ACCOUNT_FOUND_PARAM,
    NOT_EXISTS_PARAM,
    PROVIDER_LABELS,
    VERIFY_REASONS,
    auth_error_message,
    verify_reason_message,
)
from portal.domain.verification import VERIFY_PAGE_FAILED
from portal.services.errors import ServiceError
from portal.services.verification import send_account_verification
from portal.settings import settings
from portal.states.auth import SessionState, current_user, sign_in_url_for
from portal.states.browser import portal_trigger, remove_query_params_js, toast
from portal.states.tab_owner import TabOwned

log = logging.getLogger(__name__)

POST_VERIFY_REDIRECT_MS = 2000  # the spec's post-verification redirect delay

LINKEDIN_CONFIGURED = settings.oidc_configured("linkedin")
GOOGLE_CONFIGURED = settings.oidc_configured("google")


def oauth_script(provider: str, flags: str = "{}") -> EventSpec:
    """Start the provider flow in the browser (portal.js adds returnUrl, tracking data and the captcha token)."""
    return portal_trigger(f"window.portalAuth.oauth('{provider}', {flags})")


def sign_in_notices(query: dict[str, str]) -> list:
    """/sign-in?notExists=true: the toast, then the parameter removed from the address."""
    if query.get(NOT_EXISTS_PARAM, "").lower() == "true":
        return [toast("error", ACCOUNT_DOES_NOT_EXIST), rx.call_script(remove_query_params_js([NOT_EXISTS_PARAM]))]
    return []


def _query() -> rx.Var:
    """The address's query parameters as the browser holds them (the router var of the root state)."""
    return rx.State.router.url.query_parameters


def _param(name: str) -> StringVar:
    """A query parameter as text ('' when absent; a repeated one joined, as String() does)."""
    query = _query()
    return rx.Var(
        _js_expr=f"String({query}?.[{json.dumps(name)}] ?? '')", _var_type=str, _var_data=query._get_all_var_data()
    ).to(str)


def _flag(name: str) -> rx.Var[bool]:
    """A query parameter that is 'true' (any case)."""
    return _param(name).lower() == "true"


def _lookup(table: dict[str, str], key: rx.Var[str]) -> rx.Var[str]:
    """table[key] in the browser; '' for a key not in it (own keys only: never 'constructor' and the like)."""
    literal = rx.Var.create(table).to(dict)
    return rx.cond(literal.contains(key), literal[key].to(str), "")


class OidcState:
    """What the query string of the sign-in, sign-up, existing-account and verify-account screens asks for.

    Not a state: each value is worked out in the browser from the address (the router var), from the
    domain's own tables, so no state with a computed var on the router is loaded for every event of
    every page (Reflex loads each such state with each event, to recompute it)."""

    # The message for an `authError` query value (domain.oidc.auth_error_message for every code and provider).
    auth_error = _lookup(
        {
            f"{code}|{provider}": auth_error_message(code, provider)
            for code in AUTH_ERRORS
            for provider in ("", *PROVIDER_LABELS)
        },
        _param(AUTH_ERROR_PARAM)
        + "|"
        + rx.cond(_lookup({p: p for p in PROVIDER_LABELS}, _param("provider")) != "", _param("provider"), ""),
    )
    no_account_found = _flag(NO_ACCOUNT_FOUND_PARAM)
    # 'exists' (linkedin_exists=true), 'error' (linkedin_error=true) or 'found' (default).
    existing_variant = rx.cond(_flag("linkedin_exists"), "exists", rx.cond(_flag("linkedin_error"), "error", "found"))
    # Which provider's e-mail matched (LinkedIn unless the query names Google).
    existing_provider = rx.cond(
        _lookup({p: p for p in PROVIDER_LABELS}, _param("provider")) != "", _param("provider"), "linkedin"
    )
    existing_provider_label = rx.cond(
        _lookup(PROVIDER_LABELS, _param("provider")) != "", _lookup(PROVIDER_LABELS, _param("provider")), "LinkedIn"
    )
    verify_reason = _lookup({reason: verify_reason_message(reason) for reason in VERIFY_REASONS}, _param("reason"))
    from_sign_in = _flag("from_sign_in")


class LinkedInConnectState(TabOwned, rx.State):
    """/linkedin-connect: Connect LinkedIn, or 'Skip for now'."""

    @rx.event
    async def skip(self):
        """Refresh the auth state, then go to returnUrl or home."""
        session = await self.get_state(SessionState)
        user = await session._refresh()
        if user is None:
            return rx.redirect(sign_in_url_for(self), replace=True)
        return rx.redirect(safe_return_path(self.router.url.query_parameters.get("returnUrl")))


class VerifyAccountState(TabOwned, rx.State):
    """/verify-account: 'Send verification email' (idle, sending, sent)."""

    send_status: str = "idle"

    @rx.event
    def reset_status(self):
        self.send_status = "idle"

    @rx.event
    async def send_email(self):
        if self.send_status != "idle":
            return
        user = await current_user(self)
        if user is None:
            yield rx.redirect(sign_in_url_for(self), replace=True)
            return
        self.send_status = "sending"
        yield
        try:
            result = await db.run(send_account_verification, account_id=user.account_id)
        except ServiceError as err:
            self.send_status = "idle"
            yield toast("error", err.message or VERIFY_PAGE_FAILED)
            return
        except Exception:
            log.exception("verify-account send failed")
            self.send_status = "idle"
            yield toast("error", VERIFY_PAGE_FAILED)
            return
        self.send_status = "sent"
        message = str(result.get("toastMessage") or "")
        if message:
            yield toast("info" if result.get("alreadyVerified") else "success", message)
        if self.router.url.query_parameters.get("from_sign_in", "").lower() == "true":
            # A sign-in flow goes home 2 seconds after sending (a full navigation: the socket reconnects).
            yield rx.call_script(f"setTimeout(() => window.location.assign('/'), {POST_VERIFY_REDIRECT_MS})")
