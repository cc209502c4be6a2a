"""The code page of a two-factor sign-in (issue 40, item 1). The challenge is the HttpOnly portal_2fa cookie; the
code is posted by the browser to /api/account/two-factor, which opens the session."""

from __future__ import annotations

from typing import Any

import reflex as rx

from portal import db
from portal.domain import two_factor as rules
from portal.domain.navigation import SIGN_IN_PATH
from portal.services.two_factor import challenge_open
from portal.states.auth_cookie import cookies_of
from portal.states.browser import portal_call, toast
from portal.states.password_reset import _errors_by_field
from portal.states.tab_owner import TabOwned


class TwoFactorChallengeState(TabOwned, rx.State):
    ready: bool = False
    code_error: str = ""
    global_error: str = ""
    submitting: bool = False

    @rx.event
    async def load(self):
        """on_load of /two-factor: with no live challenge, back to sign-in."""
        self.ready = False
        self.code_error = self.global_error = ""
        self.submitting = False
        if not await db.run(challenge_open, challenge=cookies_of(self).get(rules.COOKIE)):
            return [toast("error", rules.CHALLENGE_EXPIRED), rx.redirect(SIGN_IN_PATH, replace=True)]
        self.ready = True
        return None

    @rx.event
    def submit(self):
        if self.submitting:
            return None
        self.submitting = True
        self.code_error = self.global_error = ""
        return portal_call(
            "window.portalAuth.twoFactor('two-factor-form')", callback=TwoFactorChallengeState.show_result
        )

    @rx.event
    def show_result(self, result: Any):
        """The answer of /api/account/two-factor as the browser passed it on (shown, never trusted)."""
        if isinstance(result, dict) and result.get("ok") is True:
            return None  # the browser is on its way
        self.submitting = False
        if isinstance(result, dict) and result.get("restart") is True:
            return [toast("error", rules.CHALLENGE_EXPIRED), rx.redirect(SIGN_IN_PATH, replace=True)]
        for item in _errors_by_field(result):
            if item["field"] == "code":
                self.code_error = item["message"]
            else:
                self.global_error = item["message"]
        return None
