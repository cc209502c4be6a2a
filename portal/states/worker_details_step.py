"""The worker-details end step ('Personal info') every kind ends with for a public respondent:
the fields the spec enables for the panel, the worker lookup, the payment e-mail, Submit.

Rules from portal/domain/worker_details (the same ones check the submission on the server).
A kind's state mixes this in after TimedSession; Submit sends the kind's payload (_send).
"""

from __future__ import annotations

import asyncio

import reflex as rx

from portal import db
from portal.domain import geography, worker_details
from portal.services import test_taking, workers
from portal.states.browser import run_script, toast
from portal.states.timed_session import END


class WorkerDetailsStep(rx.State, mixin=True):
    personal_fields: list[str] = []
    details: dict[str, str] = {}
    detail_errors: dict[str, str] = {}
    different_payment: bool = False
    lookup_pending: bool = False

    def _back_from_details(self) -> None:
        """Where 'Back to Questions' goes (the kind's last question)."""
        self.phase = "questions"

    @rx.event
    async def set_detail(self, field: str, value: str):
        if self.phase != END or field not in self.personal_fields or not isinstance(value, str):
            return
        self.details = {**self.details, field: value[:300]}
        if field in self.detail_errors:
            message = worker_details.validate(self.details, [field], different_payment_email=self.different_payment).get(field)
            self.detail_errors = {k: v for k, v in self.detail_errors.items() if k != field} | (
                {field: message} if message else {})
        return await self._save()

    @rx.event
    async def set_different_payment(self, checked: bool):
        if self.phase != END:
            return
        self.different_payment = checked is True
        return await self._save()

    @rx.event
    async def lookup_worker(self, worker_id: str):
        """The worker ID typed (500 ms after the last key): fields wait while their details are looked up."""
        if self.phase != END or "workerId" not in self.personal_fields or not isinstance(worker_id, str):
            return
        self.details = {**self.details, "workerId": worker_id[:100]}
        self.lookup_pending = True
        yield
        found = await db.run(workers.lookup, worker_id=worker_id.strip())
        await asyncio.sleep(worker_details.LOOKUP_APPLY_DELAY_MS / 1000)
        self.details = worker_details.lookup_result(found, self.details)
        self.lookup_pending = False
        self.epoch += 1
        yield await self._save()

    @rx.event
    async def back_to_questions(self):
        if self.phase != END:
            return
        self._back_from_details()
        self._refresh(await self._fresh_definition())
        events = await self._save()
        return [self._url_script(), *events]

    @rx.event
    async def submit_details(self):
        if self.phase != END or self.submitting:
            return
        errors = worker_details.validate(self.details, self.personal_fields, different_payment_email=self.different_payment)
        self.detail_errors = errors
        if errors:
            yield toast("error", test_taking.MSG_DETAILS)
            return
        async for update in self._send_shown():
            yield update

    async def _to_details(self) -> list:
        """After the last question: the personal-info step (public respondents)."""
        self.phase = END
        if not self.details:
            self.details = worker_details.empty_details()
        events = await self._save()
        return [self._url_script(), run_script("window.scrollTo(0, 0)"), *events]

    @rx.var(cache=True)
    def state_options(self) -> list[list[str]]:
        """The states of the chosen country (the US when none is chosen)."""
        country = self.details.get("country") or geography.DEFAULT_COUNTRY
        return [[code, name] for code, name in geography.subdivisions(country)] if geography.is_country(country) else []


