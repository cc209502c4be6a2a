"""Account settings (issue 40, item 1): the password change and the signed-in sessions.

No password is a state var: the live checklist gets the typed values in a debounced event and keeps only the
verdicts, and the form is posted from the browser to PUT /api/account/password (assets/portal.js). Every handler
names the account by the tab's session cookie, never by anything the browser sends.
"""

from __future__ import annotations

import logging
from typing import Any

import reflex as rx
import segno

from portal import db
from portal.domain import account_deletion as deletion_rules
from portal.domain import account_settings as rules
from portal.domain import password_policy as policy
from portal.domain import two_factor as tf_rules
from portal.domain.inbox import stamp
from portal.domain.profile_rules import SOMETHING_WENT_WRONG
from portal.models._base import utcnow
from portal.services import account_deletion, my_data, two_factor
from portal.services import account_settings as service
from portal.services.errors import ServiceError
from portal.settings import settings
from portal.states.auth_cookie import session_token
from portal.states.browser import portal_call, toast
from portal.states.password_reset import _errors_by_field, _initial_checklist, _text
from portal.states.tab_owner import TabOwned

log = logging.getLogger(__name__)


def _row(found: service.SignedInSession) -> dict[str, Any]:
    return {
        "id": found.id,
        "device": found.device,
        "mobile": found.mobile,
        "place": found.place,
        "last_used": stamp(found.last_used_at),
        "signed_in": stamp(found.signed_in_at),
        "current": found.current,
    }


class AccountState(TabOwned, rx.State):
    loaded: bool = False
    has_password: bool = False
    sessions: list[dict[str, Any]] = []
    # The password form: the checklist's verdicts and the messages, never the values.
    requirements: list[dict[str, str]] = _initial_checklist()
    ready: bool = False
    current_filled: bool = False
    password_message: str = ""
    confirm_message: str = ""
    password_touched: bool = False
    confirm_touched: bool = False
    current_error: str = ""
    password_error: str = ""
    confirm_error: str = ""
    global_error: str = ""
    submitting: bool = False
    # Two-factor sign-in: on or off, the recovery codes left, required (staff); while turning it on, the QR code and
    # the key to type (this person's own, shown to them), then the recovery codes, shown once.
    two_factor_on: bool = False
    codes_left: int = 0
    two_factor_required: bool = False
    sent_to_turn_on: bool = False  # a staff member sent here by the admin's guard
    setup_qr: str = ""
    setup_key: str = ""
    recovery_codes: list[str] = []
    two_factor_error: str = ""

    def _reset_form(self) -> None:
        self.requirements = _initial_checklist()
        self.ready = self.current_filled = False
        self.password_message = self.confirm_message = ""
        self.password_touched = self.confirm_touched = False
        self.current_error = self.password_error = self.confirm_error = self.global_error = ""
        self.submitting = False

    async def _load_sessions(self) -> bool:
        try:
            self.has_password = await db.run(service.has_password, token=session_token(self))
            found = await db.run(service.signed_in_sessions, token=session_token(self))
            seen = await db.run(two_factor.status, token=session_token(self))
        except ServiceError:
            self.sessions = []
            return False
        self.sessions = [_row(item) for item in found]
        self.two_factor_on, self.codes_left, self.two_factor_required = seen.enabled, seen.codes_left, seen.required
        return True

    @rx.event
    async def load(self):
        """on_load of /account (the page's guard has sent a signed-out visitor to sign in)."""
        self.loaded = False
        self._reset_form()
        self.setup_qr = self.setup_key = self.two_factor_error = ""
        self.recovery_codes = []
        self.sent_to_turn_on = self.router.url.query_parameters.get(tf_rules.REQUIRED_PARAM) == "1"
        self.loaded = await self._load_sessions()

    @rx.event
    def evaluate(self, field: Any, current: Any, password: Any, confirm: Any):
        """Debounced on every change of a field: the checklist and the verdicts, never the values."""
        new, again = _text(password), _text(confirm)
        self.current_filled = bool(policy.normalize(_text(current)))
        self.requirements = [{"key": r.key, "label": r.label, "status": r.status} for r in policy.checklist(new)]
        errors = policy.validate(new, again)
        self.ready = not errors
        self.password_message = errors.get(policy.PASSWORD_FIELD, "")
        self.confirm_message = errors.get(policy.CONFIRM_FIELD, "")
        if field == rules.CURRENT_FIELD:
            self.current_error = ""
        elif field == policy.PASSWORD_FIELD:
            self.password_error = ""
        elif field == policy.CONFIRM_FIELD:
            self.confirm_error = ""
        self.global_error = ""

    @rx.event
    def touch(self, field: Any):
        if field == policy.PASSWORD_FIELD:
            self.password_touched = True
        elif field == policy.CONFIRM_FIELD:
            self.confirm_touched = True

    @rx.event
    def submit(self):
        if self.submitting:
            return None
        self.submitting = True
        self.global_error = ""
        return portal_call("window.portalPasswords.change('change-password-form')", callback=AccountState.show_result)

    @rx.event
    async def show_result(self, result: Any):
        """The answer of PUT /api/account/password, as the browser passed it on (shown, never trusted)."""
        self.submitting = False
        if isinstance(result, dict) and result.get("ok") is True:
            self._reset_form()
            await self._load_sessions()
            return toast("success", rules.CHANGED)
        for item in _errors_by_field(result):
            if item["field"] == rules.CURRENT_FIELD:
                self.current_error = item["message"]
            elif item["field"] == policy.PASSWORD_FIELD:
                self.password_error = item["message"]
            elif item["field"] == policy.CONFIRM_FIELD:
                self.confirm_error = item["message"]
            else:
                self.global_error = item["message"]
        return None

    @rx.event
    async def sign_out_session(self, session_id: Any):
        try:
            await db.run(service.sign_out_session, token=session_token(self), session_id=session_id)
        except ServiceError as err:
            await self._load_sessions()
            return toast("error", err.message)
        except Exception:
            log.exception("a session could not be signed out")
            return toast("error", SOMETHING_WENT_WRONG)
        await self._load_sessions()
        return toast("success", rules.SIGNED_OUT_ONE)

    @rx.event
    async def sign_out_others(self):
        try:
            ended = await db.run(service.sign_out_others, token=session_token(self))
        except ServiceError as err:
            return toast("error", err.message)
        except Exception:
            log.exception("other sessions could not be signed out")
            return toast("error", SOMETHING_WENT_WRONG)
        await self._load_sessions()
        return toast("success", rules.SIGNED_OUT_OTHERS if ended else rules.NO_OTHER_SESSIONS)

    # --- two-factor sign-in -----------------------------------------------------------------------------------

    @rx.event
    async def start_two_factor(self):
        try:
            setup = await db.run(two_factor.start_setup, token=session_token(self))
        except ServiceError as err:
            await self._load_sessions()
            return toast("error", err.message)
        self.setup_key = " ".join(setup.secret[i : i + 4] for i in range(0, len(setup.secret), 4))
        self.setup_qr = segno.make(setup.uri, error="m").svg_data_uri(scale=5, border=2)
        self.two_factor_error = ""
        return None

    @rx.event
    async def confirm_two_factor(self, form: Any):
        code = form.get("code") if isinstance(form, dict) else None
        try:
            codes = await db.run(two_factor.confirm_setup, token=session_token(self), code=code)
        except ServiceError as err:
            self.two_factor_error = err.message
            return None
        self.setup_qr = self.setup_key = self.two_factor_error = ""
        self.recovery_codes = codes
        self.sent_to_turn_on = False
        await self._load_sessions()
        return toast("success", tf_rules.TURNED_ON)

    @rx.event
    def codes_saved(self):
        self.recovery_codes = []

    @rx.event
    async def turn_off_two_factor(self, form: Any):
        code = form.get("code") if isinstance(form, dict) else None
        try:
            await db.run(two_factor.turn_off, token=session_token(self), code=code)
        except ServiceError as err:
            self.two_factor_error = err.message
            return None
        self.two_factor_error = ""
        await self._load_sessions()
        return toast("success", tf_rules.TURNED_OFF)

    # --- my data ------------------------------------------------------------------------------------------------

    @rx.event
    async def download_my_data(self):
        """'Download my data': the session's account's data as a ZIP (services/my_data.py), built now."""
        try:
            archive = await db.run(my_data.export, token=session_token(self), brand=settings.brand_name)
        except ServiceError as err:
            return toast("error", err.message)
        except Exception:
            log.exception("my data could not be exported")
            return toast("error", SOMETHING_WENT_WRONG)
        return rx.download(data=archive, filename=f"my-data-{utcnow():%Y-%m-%d}.zip", mime_type="application/zip")

    # --- deleting the account ---------------------------------------------------------------------------------

    @rx.event
    async def request_deletion(self):
        """E-mail the link that confirms 'Delete my account' (nothing is deleted before it is opened)."""
        try:
            address = await db.run(account_deletion.request_deletion, token=session_token(self))
        except ServiceError as err:
            return toast("error", err.message)
        except Exception:
            log.exception("the deletion link could not be sent")
            return toast("error", SOMETHING_WENT_WRONG)
        return toast("success", deletion_rules.SENT.format(email=address))

    @rx.var
    def password_feedback(self) -> str:
        return self.password_error or (self.password_message if self.password_touched else "")

    @rx.var
    def confirm_feedback(self) -> str:
        return self.confirm_error or (self.confirm_message if self.confirm_touched else "")

    @rx.var
    def other_sessions(self) -> int:
        return sum(1 for row in self.sessions if not row.get("current"))
