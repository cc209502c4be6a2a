"""The notifications page (issue 38): each kind of e-mail, on or off. The account comes from the session."""

from __future__ import annotations

import logging
from typing import Any

import reflex as rx

from portal import db
from portal.domain.profile_rules import SOMETHING_WENT_WRONG
from portal.services import notification_settings as service
from portal.services.errors import ServiceError
from portal.states.auth import current_user
from portal.states.browser import toast
from portal.states.tab_owner import TabOwned

log = logging.getLogger(__name__)
SAVED_ON = "Turned on."
SAVED_OFF = "Turned off: we will not e-mail you about this."


class NotificationsState(TabOwned, rx.State):
    items: list[dict[str, str]] = []
    loaded: bool = False

    @rx.event
    async def load(self):
        """on_load of /notifications: the signed-in account's choices."""
        self.loaded = False
        user = await current_user(self)
        if user is None:
            self.items = []
            return
        self.items = await db.run(service.choices, account_id=user.account_id)
        self.loaded = True

    @rx.event
    async def toggle(self, kind: Any, on: Any):
        user = await current_user(self)
        if user is None:
            return
        try:
            await db.run(service.set_on, account_id=user.account_id, kind=kind, on=on)
        except ServiceError as err:
            yield toast("error", err.message)
            return
        except Exception:
            log.exception("notification setting could not be saved")
            yield toast("error", SOMETHING_WENT_WRONG)
            return
        self.items = await db.run(service.choices, account_id=user.account_id)
        yield toast("success", SAVED_ON if on is True else SAVED_OFF)
