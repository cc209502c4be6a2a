"""States of the LinkedIn/Google screens: query-driven variants, LinkedIn connect, verify account."""

from __future__ import annotations

import logging

import reflex as rx

from portal import db
from portal.domain.navigation import safe_return_path
from portal.domain.oidc import (
    ACCOUNT_DOES_NOT_EXIST,
    AUTH_ERROR_PARAM,
    NO_ACCOUNT_FOUND_PARAM,
    NOT_EXISTS_PARAM,
    PROVIDER_LABELS,
    auth_error_message,
    verify_reason_message,
)
from portal.domain.verification import VERIFY_PAGE_FAILED
from portal.services.errors import ServiceError
from portal.services.verification import send_account_verification
from portal.settings import settings
from portal.states.auth import SessionState, current_user, sign_in_url_for
from portal.states.browser import portal_call, remove_query_params_js, toast
from portal.states.tab_owner import TabOwned

log = logging.getLogger(__name__)

POST_VERIFY_REDIRECT_MS = 2000  # the spec's post-verification redirect delay

LINKEDIN_CONFIGURED = settings.oidc_configured("linkedin")
GOOGLE_CONFIGURED = settings.oidc_configured("google")


def oauth_script(provider: str, flags: str = "{}") -> rx.event.EventSpec:
    """Start the provider flow in the browser (portal.js adds returnUrl, tracking data and the captcha token)."""
    return portal_call(f"window.portalAuth.oauth('{provider}', {flags})")


def sign_in_notices(query: dict[str, str]) -> list:
    """/sign-in?notExists=true: the toast, then the parameter removed from the address."""
    if query.get(NOT_EXISTS_PARAM, "").lower() == "true":
        return [toast("error", ACCOUNT_DOES_NOT_EXIST), rx.call_script(remove_query_params_js([NOT_EXISTS_PARAM]))]
    return []


class OidcState(TabOwned, rx.State):
    """What the query string of the sign-in, sign-up, existing-account and verify-account screens asks for."""

    @rx.var
    def auth_error(self) -> str:
        query = self.router.url.query_parameters
        return auth_error_message(query.get(AUTH_ERROR_PARAM), query.get("provider"))

    @rx.var
    def no_account_found(self) -> bool:
        return self.router.url.query_parameters.get(NO_ACCOUNT_FOUND_PARAM, "").lower() == "true"

    @rx.var
    def existing_variant(self) -> str:
        """'exists' (linkedin_exists=true), 'error' (linkedin_error=true) or 'found' (default)."""
        query = self.router.url.query_parameters
        if query.get("linkedin_exists", "").lower() == "true":
            return "exists"
        if query.get("linkedin_error", "").lower() == "true":
            return "error"
        return "found"

    @rx.var
    def existing_provider(self) -> str:
        """Which provider's e-mail matched (LinkedIn unless the query names Google)."""
        provider = self.router.url.query_parameters.get("provider", "")
        return provider if provider in PROVIDER_LABELS else "linkedin"

    @rx.var
    def existing_provider_label(self) -> str:
        provider = self.router.url.query_parameters.get("provider", "")
        return PROVIDER_LABELS.get(provider, "LinkedIn")

    @rx.var
    def verify_reason(self) -> str:
        return verify_reason_message(self.router.url.query_parameters.get("reason"))

    @rx.var
    def from_sign_in(self) -> bool:
        return self.router.url.query_parameters.get("from_sign_in", "").lower() == "true"


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
