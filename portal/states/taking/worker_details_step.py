"""The worker-details end step ('Personal info') every kind ends with for a public respondent:
the fields the spec enables for the panel, the worker lookup, the payment e-mail, Submit.

Rules from portal/domain/taking/worker_details (the same ones check the submission on the server).
A kind's state mixes this in after TimedSession; Submit sends the kind's payload (_send).

The details are saved as truthfully as the answers: each change gets a sequence number and stays
pending in the browser's copy (under `worker_details.detail_key`) until a later event confirms it;
one the state lost is applied again (`_retry_pending`), and Submit takes the browser's pending
details before it says one is missing or wrong. Keystrokes are in the browser's copy at once
(the fields' data-answer-key), so a tab closed before the field was left keeps them.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

import reflex as rx

from portal import db
from portal.domain import geography
from portal.domain.taking import worker_details
from portal.services.taking import steps, workers
from portal.states.browser import run_script, toast
from portal.states.taking.timed_session import END, TimedSession

if TYPE_CHECKING:  # a kind's state mixes this in before TimedSession, whose vars and helpers it uses
    _Host = TimedSession
else:
    _Host = rx.State


class WorkerDetailsStep(_Host, mixin=True):
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
        return await self._save(self._change_details({field: value[: worker_details.INPUT_MAX]}))

    @rx.event
    async def set_different_payment(self, checked: bool):
        if self.phase != END:
            return
        return await self._save(self._change_details({worker_details.DIFFERENT_PAYMENT: checked is True}))

    def _change_details(self, values: dict[str, Any], seq: int | None = None) -> dict[str, int]:
        """Set fields (and the checkbox, DIFFERENT_PAYMENT) and stamp each change (`seq`: a retried
        change's own number); a field showing a message gets the message of its new value. The
        changed keys' numbers (pending in the browser until confirmed)."""
        texts = {f: v for f, v in values.items() if f != worker_details.DIFFERENT_PAYMENT}
        if worker_details.DIFFERENT_PAYMENT in values:
            self.different_payment = values[worker_details.DIFFERENT_PAYMENT] is True
        if texts:
            self.details = {**self._read("details"), **texts}
        shown = [f for f in texts if f in self.detail_errors]
        if shown:
            messages = worker_details.validate(self.details, shown, different_payment_email=self.different_payment)
            self.detail_errors = {k: v for k, v in self.detail_errors.items() if k not in shown} | {
                f: messages[f] for f in shown if messages.get(f)
            }
        return self._stamp([worker_details.detail_key(f) for f in values], seq)

    # --- saving truthfully: the details kept in the browser's copy beside the answers --------------
    def _browser_answers(self) -> dict[str, Any]:
        answers = super()._browser_answers()
        if not self.personal_fields:
            return answers
        return {
            **answers,
            **worker_details.browser_details(
                self._read("details"), self.different_payment, self._read("personal_fields")
            ),
        }

    def _pending_answer(self, key: str) -> dict[str, Any]:
        if worker_details.is_detail_key(key):
            return self._browser_answers()[key]
        return super()._pending_answer(key)

    async def _retry_pending(self, key: str, answer: dict[str, Any], seq: int) -> list:
        """A pending detail the state lacks (its write was refused), applied again with its own number;
        one for a field this step does not show, or malformed, changes nothing."""
        if not worker_details.is_detail_key(key):
            return await super()._retry_pending(key, answer, seq)
        found = worker_details.pending_detail(key, answer, self._read("personal_fields"))
        if found is None:
            return []
        return await self._save(self._change_details({found[0]: found[1]}, seq))

    @rx.event
    async def lookup_worker(self, worker_id: str):
        """The worker ID typed (500 ms after the last key): fields wait while their details are looked up."""
        if self.phase != END or "workerId" not in self.personal_fields or not isinstance(worker_id, str):
            return
        self.details = {**self.details, "workerId": worker_id[:100]}
        self.lookup_pending = True
        yield
        changed = self._stamp([worker_details.detail_key("workerId")])
        found = await db.run(workers.lookup, worker_id=worker_id.strip())
        await asyncio.sleep(worker_details.LOOKUP_APPLY_DELAY_MS / 1000)
        before = self._read("details")
        self.details = worker_details.lookup_result(found, before)
        self.lookup_pending = False
        self.epoch += 1
        # The fields the look-up filled are pending as the worker ID is: the page shows them.
        filled = [worker_details.detail_key(f) for f, v in self.details.items() if before.get(f) != v]
        yield await self._save({**changed, **self._stamp(filled)})

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
        if self._detail_errors():
            # The page may hold details the state lost (their event's state write was refused): the
            # browser's pending ones are taken first (`submit_details_with`), then the step is checked.
            ask = self._ask_browser(type(self).submit_details_with)
            if ask is not None:
                yield ask
                return
        async for update in self._submit_checked():
            yield update

    @rx.event
    async def submit_details_with(self, pending: str):
        """Submit, with the browser's pending answers and details (JSON) applied first when newer."""
        if self.phase != END or self.submitting:
            return
        for event in await self._take_pending(pending):
            yield event
        async for update in self._submit_checked():
            yield update

    def _detail_errors(self) -> dict[str, str]:
        return worker_details.validate(
            self.details, self.personal_fields, different_payment_email=self.different_payment
        )

    async def _submit_checked(self):
        errors = self._detail_errors()
        self.detail_errors = errors
        if errors:
            yield toast("error", steps.MSG_DETAILS)
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
