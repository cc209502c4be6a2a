"""The notifications page (issue 38): each kind of e-mail, on or off; the phone for texts (a code confirms it) and
the kinds that come as texts. The account always comes from the session, never from the browser."""

from __future__ import annotations

import logging
from typing import Any

import reflex as rx

from portal import db
from portal.domain import sms as sms_rules
from portal.domain.profile_rules import SOMETHING_WENT_WRONG
from portal.services import notification_settings as service
from portal.services import sms
from portal.services.errors import ServiceError
from portal.states.auth import current_user
from portal.states.browser import toast
from portal.states.tab_owner import TabOwned

log = logging.getLogger(__name__)
SAVED_ON = "Turned on."
SAVED_OFF = "Turned off: we will not e-mail you about this."
TEXT_ON = "Turned on: this comes as a text too."
TEXT_OFF = "Turned off: no text for this."


def _field(form: Any, key: str) -> Any:
    return form.get(key) if isinstance(form, dict) else None


class NotificationsState(TabOwned, rx.State):
    items: list[dict[str, str]] = []
    loaded: bool = False
    # The phone for texts (services/sms.view): number, confirmed, stopped, code_pending, available, kinds.
    phone: str = ""
    phone_confirmed: bool = False
    phone_stopped: bool = False
    code_pending: bool = False
    sms_available: bool = False
    sms_kinds: list[str] = []
    phone_error: str = ""
    code_error: str = ""
    sending: bool = False

    def _show_phone(self, seen: dict[str, Any]) -> None:
        self.phone, self.phone_confirmed = seen["phone"], seen["confirmed"]
        self.phone_stopped, self.code_pending = seen["stopped"], seen["code_pending"]
        self.sms_available, self.sms_kinds = seen["available"], seen["kinds"]

    @rx.event
    async def load(self):
        """on_load of /notifications: the signed-in account's choices."""
        self.loaded = False
        self.phone_error = self.code_error = ""
        user = await current_user(self)
        if user is None:
            self.items = []
            return
        self.items = await db.run(service.choices, account_id=user.account_id)
        self._show_phone(await db.run(sms.view, account_id=user.account_id))
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

    @rx.event
    async def send_code(self, form: Any):
        """'Send code': text a code to the number typed."""
        user = await current_user(self)
        if user is None:
            return
        self.phone_error = self.code_error = ""
        self.sending = True
        yield
        try:
            shown = await db.run(sms.send_code, account_id=user.account_id, phone=_field(form, "phone"))
        except ServiceError as err:
            self.phone_error = err.message
            return
        except Exception:
            log.exception("phone code could not be sent")
            self.phone_error = SOMETHING_WENT_WRONG
            return
        finally:
            self.sending = False
        self._show_phone(await db.run(sms.view, account_id=user.account_id))
        yield toast("success", sms_rules.CODE_SENT.format(phone=shown))

    @rx.event
    async def confirm_code(self, form: Any):
        """'Confirm': the code from the text."""
        user = await current_user(self)
        if user is None:
            return
        self.code_error = ""
        try:
            problem = await db.run(sms.confirm, account_id=user.account_id, code=_field(form, "code"))
        except Exception:
            log.exception("phone code could not be checked")
            problem = SOMETHING_WENT_WRONG
        if problem:
            self.code_error = problem
            return
        self._show_phone(await db.run(sms.view, account_id=user.account_id))
        yield toast("success", sms_rules.CONFIRMED)

    @rx.event
    async def toggle_text(self, kind: Any, on: Any):
        """A kind as a text too, or not."""
        user = await current_user(self)
        if user is None:
            return
        try:
            await db.run(sms.set_kind, account_id=user.account_id, kind=kind, on=on)
        except ServiceError as err:
            yield toast("error", err.message)
            return
        except Exception:
            log.exception("text setting could not be saved")
            yield toast("error", SOMETHING_WENT_WRONG)
            return
        self._show_phone(await db.run(sms.view, account_id=user.account_id))
        yield toast("success", TEXT_ON if on is True else TEXT_OFF)

    @rx.event
    async def remove_phone(self):
        user = await current_user(self)
        if user is None:
            return
        try:
            await db.run(sms.remove, account_id=user.account_id)
        except Exception:
            log.exception("phone could not be removed")
            yield toast("error", SOMETHING_WENT_WRONG)
            return
        self.phone_error = self.code_error = ""
        self._show_phone(await db.run(sms.view, account_id=user.account_id))
        yield toast("success", sms_rules.REMOVED)
