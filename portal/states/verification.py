"""The verification banners' Resend button."""

from __future__ import annotations

import reflex as rx

from portal import db
from portal.domain.verification import SOMETHING_WENT_WRONG
from portal.services.verification import ResendError, resend
from portal.states.auth import SessionState, current_user, sign_in_url_for
from portal.states.browser import toast
from portal.states.tab_owner import TabOwned


class VerificationState(TabOwned, rx.State):
    sending: str = ""  # the kind being resent, for the button's loading state

    @rx.event
    async def resend(self, kind: str):
        if kind not in ("work", "personal") or self.sending:
            return
        user = await current_user(self)
        if user is None:
            yield rx.redirect(sign_in_url_for(self))
            return
        self.sending = kind
        yield
        try:
            message = await db.run(resend, account_id=user.account_id, kind=kind)
            events = [toast("success", message)]
        except ResendError as err:
            events = [toast("error" if not err.already_verified else "info", err.message)]
            if err.already_verified:  # the second error: the e-mail is verified after all
                session = await self.get_state(SessionState)
                await session._refresh()
        except Exception:
            events = [toast("error", SOMETHING_WENT_WRONG)]
        self.sending = ""
        for event in events:
            yield event
