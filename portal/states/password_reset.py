"""Forgot password and create-new-password screens.

No password is ever a state var: the live checklist receives the typed values in a
debounced event, evaluates them with the domain policy and keeps only the verdicts;
the forms themselves are posted from the browser to /api/account (assets/portal.js).
"""

from __future__ import annotations

from typing import Any

import reflex as rx

from portal import db
from portal.domain import password_policy as policy
from portal.domain import password_reset as rules
from portal.services.password_reset import check_token
from portal.states.browser import portal_call
from portal.states.tab_owner import TabOwned

_GENERIC = "Something went wrong, please try again later"
# The longest text the checklist looks at; anything longer is too long anyway.
_MAX_EVALUATED = policy.MAX_LENGTH + 64


def _initial_checklist() -> list[dict[str, str]]:
    return [{"key": r.key, "label": r.label, "status": r.status} for r in policy.checklist("")]


def _text(value: Any) -> str:
    return value[: _MAX_EVALUATED + 1] if isinstance(value, str) else ""


def _errors_by_field(result: Any) -> list[dict[str, str]]:
    errors = result.get("errors") if isinstance(result, dict) else None
    if not isinstance(errors, list) or not errors:
        return [{"field": "_global", "message": _GENERIC}]
    out = []
    for item in errors:
        if isinstance(item, dict):
            out.append(
                {
                    "field": str(item.get("field", "_global")),
                    "message": str(item.get("message", _GENERIC))[:300],
                    "code": str(item.get("code", "")),
                }
            )
    return out or [{"field": "_global", "message": _GENERIC}]


class ForgotPasswordState(TabOwned, rx.State):
    email_filled: bool = False
    email_error: str = ""
    global_error: str = ""
    submitting: bool = False
    sent: bool = False
    sent_text: str = ""

    @rx.event
    def load(self):
        self.email_filled = False
        self.email_error = self.global_error = ""
        self.submitting = False
        self.sent = False
        self.sent_text = ""

    @rx.event
    def email_changed(self, value: Any):
        self.email_filled = bool(_text(value).strip())
        self.email_error = ""

    @rx.event
    def submit(self):
        """The browser posts the address to /api/account/forgot-password; the answer comes back here."""
        if self.submitting:
            return None
        self.submitting = True
        self.email_error = self.global_error = ""
        return portal_call("window.portalPasswords.forgot('forgot-form')", callback=ForgotPasswordState.show_result)

    @rx.event
    def show_result(self, result: Any):
        self.submitting = False
        if isinstance(result, dict) and result.get("sent"):
            email = str(result.get("email", ""))[:320]
            minutes = got if isinstance(got := result.get("minutes"), int) else 60
            self.sent_text = rules.SENT_TEXT.format(email=email, minutes=minutes)
            self.sent = True
            return
        for item in _errors_by_field(result):
            if item["field"] == "email":
                self.email_error = item["message"]
            else:
                self.global_error = item["message"]


class ResetPasswordState(TabOwned, rx.State):
    checked: bool = False
    requirements: list[dict[str, str]] = _initial_checklist()
    ready: bool = False
    # Live verdicts of the policy for each field (shown once the field was left).
    password_message: str = ""
    confirm_message: str = ""
    password_touched: bool = False
    confirm_touched: bool = False
    # Errors from the server; they clear when their field changes.
    password_error: str = ""
    password_error_code: str = ""
    confirm_error: str = ""
    global_error: str = ""
    submitting: bool = False

    @rx.event
    async def load(self):
        """No token: not found. A dead link: a toast and home. Otherwise the form."""
        self.checked = False
        self.requirements = _initial_checklist()
        self.ready = False
        self.password_message = self.confirm_message = ""
        self.password_touched = self.confirm_touched = False
        self.password_error = self.password_error_code = self.confirm_error = self.global_error = ""
        self.submitting = False
        token = self.router.url.query_parameters.get("token", "")
        if not isinstance(token, str) or not token:
            return rx.redirect("/404", replace=True)
        if not await db.run(check_token, token=token):
            return [rx.toast.error(rules.LINK_USED), rx.redirect("/", replace=True)]
        self.checked = True
        return None

    @rx.event
    def evaluate(self, field: Any, password: Any, confirm: Any):
        """Debounced on every change of either field: the checklist and the verdicts, never the values."""
        new, again = _text(password), _text(confirm)
        self.requirements = [{"key": r.key, "label": r.label, "status": r.status} for r in policy.checklist(new)]
        errors = policy.validate(new, again)
        self.ready = not errors
        self.password_message = errors.get(policy.PASSWORD_FIELD, "")
        self.confirm_message = errors.get(policy.CONFIRM_FIELD, "")
        if field == policy.PASSWORD_FIELD:
            self.password_error = self.password_error_code = ""
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
        return portal_call("window.portalPasswords.reset('reset-form')", callback=ResetPasswordState.show_result)

    @rx.event
    def show_result(self, result: Any):
        if isinstance(result, dict) and result.get("ok"):
            return [rx.toast.success(rules.RESET_DONE), rx.redirect("/sign-in", replace=True)]
        self.submitting = False
        for item in _errors_by_field(result):
            if item["field"] == "token":
                return [rx.toast.error(rules.LINK_USED), rx.redirect("/", replace=True)]
            if item["field"] == policy.PASSWORD_FIELD:
                self.password_error, self.password_error_code = item["message"], item["code"]
            elif item["field"] == policy.CONFIRM_FIELD:
                self.confirm_error = item["message"]
            else:
                self.global_error = item["message"]
        return None

    @rx.var
    def password_feedback(self) -> str:
        return self.password_error or (self.password_message if self.password_touched else "")

    @rx.var
    def confirm_feedback(self) -> str:
        return self.confirm_error or (self.confirm_message if self.confirm_touched else "")
