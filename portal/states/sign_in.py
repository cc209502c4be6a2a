"""The sign-in screen: field and global errors, the collapsible e-mail form, the 'Last used' badge."""

from __future__ import annotations

from typing import Any

import reflex as rx

from portal.domain.navigation import after_password_sign_in
from portal.states.auth import SessionState
from portal.states.browser import portal_call
from portal.states.oidc import GOOGLE_CONFIGURED, LINKEDIN_CONFIGURED, sign_in_notices
from portal.states.tab_owner import TabOwned

_GENERIC = "Something went wrong, please try again later"


# The e-mail form (older accounts) starts open only when no provider sign-in is offered.
EMAIL_FORM_OPEN_BY_DEFAULT = not (LINKEDIN_CONFIGURED or GOOGLE_CONFIGURED)


def sign_in_title() -> rx.Var[str]:
    """'Log in as participant', '... to participate' when the return path is a test; worked out in the
    browser from the address (a computed var on the router is loaded with every event of every page)."""
    query = rx.State.router.url.query_parameters
    to = rx.Var(_js_expr=f"String({query}?.[\"to\"] ?? '')", _var_type=str, _var_data=query._get_all_var_data()).to(str)
    return rx.cond(to.contains("test"), "Log in as participant to participate", "Log in as participant")


class SignInState(TabOwned, rx.State):
    email_error: str = ""
    password_error: str = ""
    global_error: str = ""
    submitting: bool = False
    # Open by default only when neither LinkedIn nor Google sign-in is configured.
    email_form_open: bool = EMAIL_FORM_OPEN_BY_DEFAULT
    # Which login method was used last on this browser (not a credential).
    last_login_method: str = rx.LocalStorage("", name="lastLoginMethod")

    @rx.event
    async def load(self):
        """A signed-in user does not need this page: finished users go on, unfinished ones to sign-up."""
        # The e-mail form is not closed here: a click on 'toggle' that reaches the server before this
        # load event (a slow hydration) would otherwise be undone under the person's cursor.
        self.submitting = False
        session = await self.get_state(SessionState)
        user = await session._refresh()
        onward = None
        if user is not None:
            onward = after_password_sign_in(
                to=self.router.url.query_parameters.get("to"),
                registration_complete=user.is_registration_complete,
                email_verified=user.is_email_verified,
            )
        notices = session._query_notices(user, onward=onward) + sign_in_notices(dict(self.router.url.query_parameters))
        return notices or None

    @rx.event
    def toggle_email_form(self):
        self.email_form_open = not self.email_form_open

    @rx.event
    def submit(self):
        """The browser posts the form to /api/account/sign-in itself; only the answer comes back here."""
        if self.submitting:
            return None
        self.submitting = True
        self.email_error = self.password_error = self.global_error = ""
        return portal_call("window.portalAuth.signIn('sign-in-form')", callback=SignInState.show_result)

    @rx.event
    def show_result(self, result: Any):
        if isinstance(result, dict) and result.get("ok"):
            return  # the browser is already navigating away
        self.submitting = False
        errors = result.get("errors") if isinstance(result, dict) else None
        if not isinstance(errors, list) or not errors:
            self.global_error = _GENERIC
            return
        for item in errors:
            if not isinstance(item, dict):
                continue
            field, message = str(item.get("field", "_global")), str(item.get("message", _GENERIC))[:300]
            if field == "email":
                self.email_error = message
            elif field == "password":
                self.password_error = message
            else:
                self.global_error = message
