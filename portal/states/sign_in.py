"""The sign-in screen: field and global errors, the collapsible e-mail form, the 'Last used' badge."""

from __future__ import annotations

from typing import Any

import reflex as rx

from portal.domain.navigation import SIGN_UP_PATH, safe_return_path
from portal.states.auth import SessionState

_GENERIC = "Something went wrong, please try again later"


class SignInState(rx.State):
    email_error: str = ""
    password_error: str = ""
    global_error: str = ""
    submitting: bool = False
    email_form_open: bool = True
    # Which login method was used last on this browser (not a credential).
    last_login_method: str = rx.LocalStorage("", name="lastLoginMethod")

    @rx.var
    def title(self) -> str:
        to = self.router.url.query_parameters.get("to", "")
        return "Log in as participant" + (" to participate" if "test" in to else "")

    @rx.event
    async def load(self):
        """A signed-in user does not need this page: finished users go on, unfinished ones to sign-up."""
        self.submitting = False
        session = await self.get_state(SessionState)
        user = await session._refresh()
        if user is not None and not user.is_registration_complete:
            return rx.redirect(SIGN_UP_PATH, replace=True)
        onward = None
        if user is not None and user.may_use_private_routes:
            onward = safe_return_path(self.router.url.query_parameters.get("to"))
        return session._query_notices(user, onward=onward) or None

    @rx.event
    def toggle_email_form(self):
        self.email_form_open = not self.email_form_open

    @rx.event
    def submit(self, _form: dict[str, Any] | None = None):
        """The browser posts the form to /api/account/sign-in itself; only the answer comes back here."""
        if self.submitting:
            return None
        self.submitting = True
        self.email_error = self.password_error = self.global_error = ""
        return rx.call_script("window.portalAuth.signIn('sign-in-form')", callback=SignInState.show_result)

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
