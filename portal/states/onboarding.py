"""/sign-up/finish (screen 9): the three onboarding steps. Thin: rules in portal/domain.

Values arrive per field when it is left (and from the form itself when a step is submitted);
the personal e-mail's duplicate check comes 800 ms after typing stops and the work e-mail's
check 500 ms after (both debounced in the browser: one event each). The work e-mail check runs
as a background task tagged with a sequence number: a newer input cancels it, and an answer for
an older sequence or for a value the field no longer holds is dropped.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import reflex as rx

from portal import db
from portal.domain import onboarding as steps
from portal.domain import sign_up_fields as fields
from portal.domain import work_email as work_rules
from portal.domain.accounts import normalize_email
from portal.domain.navigation import SIGN_UP_PATH
from portal.services import onboarding as service
from portal.services.errors import ServiceError, ThrottledError
from portal.services.work_email import check_work_email, email_taken
from portal.states.auth import SessionState, current_user
from portal.states.browser import toast
from portal.states.tab_owner import TabOwned

log = logging.getLogger(__name__)

THANK_YOU_PATH = "/thank-you"


def signup_event_js(participant: str) -> str:
    """Push the analytics event once per participant per browser session (sessionStorage guard)."""
    key = json.dumps(f"portalSignupTracked:{participant}")
    payload = json.dumps({"event": steps.SIGNUP_EVENT, "participantId": participant})
    return (
        "(() => { try { "
        f"if (window.sessionStorage.getItem({key})) return; window.sessionStorage.setItem({key}, '1'); "
        f"(window.dataLayer = window.dataLayer || []).push({payload}); "
        "} catch (e) { console.error(e); } })()"
    )


class OnboardingState(TabOwned, rx.State):
    loaded: bool = False
    form_key: int = 0
    step: int = 0
    values: dict[str, str] = {}
    errors: dict[str, str] = {}
    form_message: str = ""
    submitting: bool = False
    registration_complete: bool = False
    email_verified: bool = False
    work_email_verified: bool = False
    stored_email: str = ""
    stored_work_email: str = ""
    from_linkedin: bool = False
    checking_work_email: bool = False
    resending: str = ""

    _account_id: int = 0
    _touched: list[str] = []
    _shown_steps: list[int] = []
    _db_errors: dict[str, str] = {}
    _check_seq: int = 0

    # --- loading ------------------------------------------------------------------------

    def _apply(self, data: service.OnboardingData) -> None:
        self.values = dict(data.values)
        self.registration_complete = data.registration_complete
        self.email_verified = data.email_verified
        self.work_email_verified = data.work_email_verified
        self.stored_email = data.stored_email
        self.stored_work_email = data.stored_work_email
        self.from_linkedin = data.from_linkedin

    @rx.event
    async def load(self):
        """on_load: no signed-in user goes to /sign-up keeping the query string."""
        self.loaded = False
        session = await self.get_state(SessionState)
        user = await session._refresh()
        if user is None:
            query = self.router.url.query  # as it came: order and repeated parameters kept
            return rx.redirect(SIGN_UP_PATH + ("?" + query if query else ""), replace=True)
        try:
            data = await db.run(service.load_onboarding, account_id=user.account_id)
        except ServiceError:
            return rx.redirect(SIGN_UP_PATH, replace=True)
        if data.registration_complete and data.work_email_verified:
            return rx.redirect("/", replace=True)
        # What this person typed on this tab and has not sent yet survives a reload (issue 40): the tab's state
        # outlives the page, so the typed values go back over what the database holds.
        typed = dict(self.values) if self._account_id == user.account_id and not data.registration_complete else {}
        self._account_id = user.account_id
        self._apply(data)
        for key, value in typed.items():
            self._set(key, value)
        self._touched, self._shown_steps, self._db_errors = [], [], {}
        self._check_seq += 1
        self.errors, self.form_message, self.submitting, self.resending = {}, "", False, ""
        self.checking_work_email = False
        self.step = steps.first_step(registration_complete=data.registration_complete)
        self.form_key += 1
        self.loaded = True
        if data.registration_complete:
            return rx.call_script(signup_event_js(str(user.account_id)))
        return None

    async def _user_id(self) -> int | None:
        """The signed-in account, and the one this page was loaded for; else None."""
        user = await current_user(self)
        if user is None or not self.loaded or user.account_id != self._account_id:
            return None
        return user.account_id

    # --- live messages ------------------------------------------------------------------

    def _form(self) -> fields.SignUpForm:
        return fields.parse(self.values)

    def _all_errors(self, *, submitting: bool) -> dict[str, str]:
        """Every field's message: the domain rules plus the database answers.

        Live (not submitting), the work e-mail shows only 'required' and its check's answer: its
        syntax and domain are judged by the check, which runs only from 5 characters with '@'/'.'.
        """
        errors = fields.validate(self._form())
        if not submitting and errors.get("workEmail") != fields.WORK_EMAIL_REQUIRED:
            errors.pop("workEmail", None)
        for key, message in self._db_errors.items():
            errors.setdefault(key, message)
        if self.work_email_verified:
            errors.pop("workEmail", None)
        return errors

    def _show(self, *, submitting: bool = False) -> dict[str, str]:
        errors = self._all_errors(submitting=submitting)
        shown_fields = set(self._touched)
        for step in self._shown_steps:
            shown_fields.update(steps.STEP_FIELDS.get(step, ()))
        self.errors = {k: v for k, v in errors.items() if k in shown_fields}
        self.form_message = steps.incomplete_message(self.step, self.errors) if self.step in steps.STEP_FIELDS else ""
        return errors

    def _set(self, key: str, value: Any) -> bool:
        """Keep a field's value; True when it changed."""
        if key not in fields.FIELDS or (key == "workEmail" and self.work_email_verified):
            return False
        text = fields.clean_value(key, value)[: fields.MAX_LENGTH[key] + 1]
        if self.values.get(key, "") == text:
            return False
        self.values = {**self.values, key: text}
        self._db_errors = {k: v for k, v in self._db_errors.items() if k != key}
        return True

    def _touch(self, key: str) -> None:
        if key in fields.FIELDS and key not in self._touched:
            self._touched = [*self._touched, key]

    @rx.event
    def keep_field(self, key: Any, value: Any):
        """Typing in a field (debounced): the value is kept, so a reload shows it again; no message until it is left."""
        if not self.loaded or key not in fields.FIELDS:
            return
        self._set(key, value)

    @rx.event
    def set_field(self, key: Any, value: Any):
        """A field was left (or a select changed)."""
        if not self.loaded or key not in fields.FIELDS:
            return
        self._set(key, value)
        self._touch(key)
        self._show()

    @rx.event
    async def email_typed(self, value: Any):
        """800 ms after typing stops in the personal e-mail: is it used by another account?"""
        if not self.loaded or not isinstance(value, str):
            return
        self._set("email", value)
        text = self.values.get("email", "")
        if text and text != normalize_email(self.stored_email) and not fields.field_error("email", text):
            account_id = await self._user_id()
            if account_id is None:
                return
            try:
                taken = await db.run(email_taken, account_id=account_id, email=text)
            except Exception:
                log.exception("e-mail duplicate check failed")
                taken = False  # a failed check counts as "not existing"; the submit checks again
            if taken and self.values.get("email", "") == text:
                self._db_errors = {**self._db_errors, "email": fields.EMAIL_EXISTS}
                self._touch("email")
        self._show()

    @rx.event
    def work_email_typed(self, value: Any):
        """500 ms after typing stops in the work e-mail: cancel older checks, start one if worth it."""
        if not self.loaded or not isinstance(value, str) or self.work_email_verified:
            return
        self._set("workEmail", value)
        self._check_seq += 1
        text = self.values.get("workEmail", "")
        self.checking_work_email = work_rules.worth_checking(text)
        self._show()
        if self.checking_work_email:
            return OnboardingState.run_work_email_check(self._check_seq, text)
        return None

    @rx.event(background=True)
    async def run_work_email_check(self, seq: Any, value: Any):
        if not isinstance(seq, int) or not isinstance(value, str):
            return
        async with self:
            if seq != self._check_seq or not self.loaded:
                return
            account_id = self._account_id
        user = await current_user(self)
        if user is None or user.account_id != account_id:
            return
        try:
            check = await db.run(check_work_email, account_id=account_id, value=value)
        except Exception:
            log.exception("work e-mail check failed")
            return
        async with self:
            self._apply_check(seq, check)

    def _apply_check(self, seq: int, check: work_rules.WorkEmailCheck) -> bool:
        """Show a check's answer; False (dropped) when a newer input cancelled it or the value changed."""
        if seq != self._check_seq or normalize_email(self.values.get("workEmail", "")) != check.value:
            return False
        self.checking_work_email = False
        current = self.errors.get("workEmail", "")
        message = work_rules.message_after_check(current, check)
        self._db_errors = {k: v for k, v in self._db_errors.items() if k != "workEmail"}
        if message:
            self._db_errors = {**self._db_errors, "workEmail": message}
            self._touch("workEmail")
        self._show()
        return True

    # --- moving between steps -------------------------------------------------------------

    def _take_form(self, form_data: Any) -> None:
        if isinstance(form_data, dict):
            for key in steps.STEP_FIELDS.get(self.step, ()):
                if key in form_data:
                    self._set(key, form_data[key])

    @rx.event
    async def submit_step(self, form_data: Any = None):
        """The step's form was submitted ('Looks good' on step 0, 'Continue' on step 1)."""
        if not self.loaded or self.submitting or self.step not in steps.STEP_FIELDS:
            return
        self._take_form(form_data)
        async for event in self._move(self.step + 1, by_tab=False):
            yield event

    @rx.event
    async def go_to_step(self, index: Any):
        """A click on a step of the indicator."""
        if not self.loaded or self.submitting or steps.as_step(index) is None:
            return
        async for event in self._move(index, by_tab=True):
            yield event

    @rx.event
    def go_back(self):
        if self.loaded and not self.submitting:
            self.step = steps.back(self.step)
            self._show()

    async def _move(self, target: Any, *, by_tab: bool):
        errors = self._all_errors(submitting=True)
        move = steps.plan(
            self.step,
            target,
            errors=errors,
            registration_complete=self.registration_complete,
            by_tab=by_tab,
            any_error=bool(self.errors),
        )
        if move.blocked_by is not None:
            for step in range(steps.REVIEW, min(move.target, steps.LAST)):
                if step not in self._shown_steps:
                    self._shown_steps = [*self._shown_steps, step]
            if move.blocked_by in steps.STEP_FIELDS:
                self.step = move.blocked_by if move.blocked_by < self.step else self.step
            self._show(submitting=True)
            return
        if not move.submit:
            self.step = move.step
            self._show()
            return
        async for event in self._submit():
            yield event

    async def _submit(self):
        account_id = await self._user_id()
        if account_id is None:
            yield toast("error", steps.PROFILE_REMOVED)
            yield rx.redirect("/sign-in", replace=True)
            return
        self.submitting = True
        yield
        try:
            # The work e-mail is checked at once on submit (no debounce), then the form waits 50 ms.
            self._check_seq += 1
            self.checking_work_email = False
            if not self.work_email_verified and work_rules.worth_checking(self.values.get("workEmail", "")):
                check = await db.run(check_work_email, account_id=account_id, value=self.values["workEmail"])
                if not check.valid and check.message:
                    self._db_errors = {**self._db_errors, "workEmail": check.message}
            await asyncio.sleep(work_rules.SUBMIT_WAIT_MS / 1000)
            self._shown_steps = sorted({*self._shown_steps, *steps.STEP_FIELDS})
            errors = self._show(submitting=True)
            if errors:
                self.step = min(steps.step_of(key) or steps.DETAILS for key in errors)
                self._show(submitting=True)
                return
            result = await db.run(service.finish_sign_up, account_id=account_id, raw=dict(self.values))
            if not result.ok:
                self._db_errors = {**self._db_errors, **result.errors}
                self.step = min(steps.step_of(key) or steps.DETAILS for key in result.errors)
                self._show(submitting=True)
                yield toast("error", steps.FORM_ERROR)
                return
            data = await db.run(service.load_onboarding, account_id=account_id)
            self._apply(data)
            self._db_errors = {}
            self.step = steps.VALIDATE
            self._show()
            session = await self.get_state(SessionState)
            await session._refresh()  # the logo becomes a link, the header knows the new state
            yield rx.call_script(signup_event_js(str(account_id)))
        except service.ProfileRemovedError:
            yield toast("error", steps.PROFILE_REMOVED)
            yield rx.redirect("/sign-in", replace=True)
        except ThrottledError as err:  # a verification e-mail is over the e-mail limits: wait, then continue
            self.form_message = err.message
            yield toast("error", err.message)
        except Exception:
            log.exception("finishing the sign-up failed")
            self.form_message = steps.SUBMIT_FAILED
            yield toast("error", steps.SOMETHING_WENT_WRONG)
        finally:
            self.submitting = False

    # --- the last step ----------------------------------------------------------------------

    @rx.event
    async def resend(self, kind: Any = "work"):
        """'Resend email': a new link for the work (or personal) e-mail."""
        if not self.loaded or self.resending or kind not in ("work", "personal") or not self.registration_complete:
            return
        account_id = await self._user_id()
        if account_id is None:
            return
        self.resending = kind
        yield
        try:
            message = await db.run(service.resend_work_email, account_id=account_id, kind=kind)
            yield toast("success", message)
        except ServiceError as err:
            yield toast("error", err.message or steps.RESEND_FAILED)
            if getattr(err, "already_verified", False):
                async for event in self._after_status():
                    yield event
        except Exception:
            log.exception("resend failed")
            yield toast("error", steps.SOMETHING_WENT_WRONG)
        finally:
            self.resending = ""

    @rx.event
    async def refresh_status(self):
        """The window got focus again on the last step: was the work e-mail verified meanwhile?"""
        if not self.loaded or self.step != steps.VALIDATE:
            return
        async for event in self._after_status():
            yield event

    async def _after_status(self):
        account_id = await self._user_id()
        if account_id is None:
            return
        data = await db.run(service.load_onboarding, account_id=account_id)
        self._apply(data)
        if data.work_email_verified:
            yield rx.redirect(THANK_YOU_PATH)

    # --- what the page shows ---------------------------------------------------------------

    @rx.var
    def any_error(self) -> bool:
        return bool(self.errors)

    @rx.var
    def tabs_enabled(self) -> list[bool]:
        return [
            steps.tab_enabled(
                i, self.step, any_error=bool(self.errors), registration_complete=self.registration_complete
            )
            for i in range(len(steps.STEPS))
        ]
