"""/account/delete (issue 40, item 2): the page the confirmation e-mail's link opens. The link's token alone decides
(it proves the person reads the account's mailbox); nothing is deleted until the button is pressed."""

from __future__ import annotations

import logging

import reflex as rx

from portal import db
from portal.domain import account_deletion as rules
from portal.domain.navigation import SIGN_IN_PATH
from portal.domain.profile_rules import SOMETHING_WENT_WRONG
from portal.services import account_deletion as service
from portal.services.errors import ServiceError
from portal.states.browser import toast
from portal.states.tab_owner import TabOwned

log = logging.getLogger(__name__)


class DeleteAccountState(TabOwned, rx.State):
    checked: bool = False
    usable: bool = False
    deleting: bool = False

    def _token(self) -> str:
        value = self.router.url.query_parameters.get("token", "")
        return value if isinstance(value, str) else ""

    @rx.event
    async def load(self):
        self.checked = self.usable = self.deleting = False
        self.usable = await db.run(service.link_usable, token=self._token())
        self.checked = True

    @rx.event
    async def confirm(self):
        if self.deleting:
            return None
        self.deleting = True
        try:
            await db.run(service.delete_account, token=self._token())
        except ServiceError:
            self.deleting, self.usable = False, False
            return toast("error", rules.LINK_DEAD)
        except Exception:
            log.exception("an account could not be deleted")
            self.deleting = False
            return toast("error", SOMETHING_WENT_WRONG)
        return [toast("success", rules.DELETED), rx.redirect(SIGN_IN_PATH, replace=True)]
