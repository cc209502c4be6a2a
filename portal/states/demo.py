"""The demo opt-in modal on the home page and the /demo page (screen 15)."""

from __future__ import annotations

import logging
from typing import Any

import reflex as rx

from portal import db
from portal.domain import demo_opt_in as rules
from portal.domain.navigation import safe_return_path
from portal.domain.profile_rules import PROFILE_REMOVED, SOMETHING_WENT_WRONG
from portal.services import profile as service
from portal.states.auth import SessionState, current_user, sign_in_url_for
from portal.states.browser import toast
from portal.states.tab_owner import TabOwned

log = logging.getLogger(__name__)


class DemoOptInState(TabOwned, rx.State):
    open: bool = False
    saving: bool = False
    # Closing the modal hides it for the browser session; Yes remembers where the user was.
    dismissed: str = rx.SessionStorage("", name="demoOptInDismissed")
    return_to: str = rx.SessionStorage("", name="demoReturnTo")
    status: str = ""  # the /demo page: "in" | "out" | ""

    @rx.event
    async def load(self):
        """on_load of the home page: open the modal while the user's choice is unset."""
        self.open = False
        if self.dismissed:
            return
        user = await current_user(self)
        if user is None or not user.may_use_private_routes:
            return
        flags = (await self.get_state(SessionState)).flags
        if not flags.get(rules.FLAG):
            return
        try:
            status = await db.run(service.demo_opt_in_status, account_id=user.account_id)
        except Exception:
            log.exception("demo opt-in status could not be read")
            return
        self.open = rules.modal_visible(flag_on=True, status=status, dismissed_this_session=bool(self.dismissed))

    @rx.event
    async def answer(self, yes: Any):
        """Yes: saved true, the address remembered, on to the demo route. No: saved false."""
        if not isinstance(yes, bool) or self.saving:
            return
        user = await current_user(self)
        if user is None:
            self.open = False
            yield toast("error", PROFILE_REMOVED)
            yield rx.redirect(sign_in_url_for(self))
            return
        self.saving = True
        yield
        try:
            await db.run(service.set_demo_opt_in, account_id=user.account_id, status=yes)
        except Exception:
            log.exception("demo opt-in could not be saved")
            self.saving = False
            yield toast("error", SOMETHING_WENT_WRONG)
            return
        self.saving = False
        self.open = False
        if yes:
            url = self.router.url
            self.return_to = rules.remembered_address(url.path or "/", url.query)
            yield rx.redirect(rules.demo_route(True))
        else:
            yield toast("success", rules.NO_SAVED)

    @rx.event
    def set_open(self, open_: Any):
        """The dialog's close button or Escape: hidden for this browser session, nothing saved."""
        if open_ is not True:
            self.open = False
            self.dismissed = "1"

    @rx.event
    async def load_page(self):
        """on_load of /demo: the user's saved choice."""
        self.status = ""
        user = await current_user(self)
        if user is None:
            return
        status = await db.run(service.demo_opt_in_status, account_id=user.account_id)
        self.status = "in" if status else "out"

    @rx.var
    def back_href(self) -> str:
        return safe_return_path(self.return_to)
