"""The screener view of the rating page: the question, the participant's choices, Confirm.

Thin: the rules are in portal.domain.taking.screener, the judging in portal.services.taking.screener. The
rating page calls `ScreenerState.load(test_id)` when its view is 'screener'. Every handler
resolves the signed-in account again from the session cookie; the answer is judged on the
server and kept once per participant and test. On a pass the rating page re-runs its load
(`RateState.reload_access`), which now finds the screener passed and shows the test.

A signed-out respondent (a test with public qualifications) is not screened (see
`portal.domain.taking.screener.applies` and docs/decisions.md): `load` shows nothing for them and
`confirm` does nothing.
"""

from __future__ import annotations

import logging
from typing import Any

import reflex as rx

from portal import db
from portal.domain.ids import whole_number
from portal.domain.taking import screener as rules
from portal.domain.taking.access import respondent_key
from portal.services.errors import ServiceError
from portal.services.taking import screener as service
from portal.states.auth import current_user
from portal.states.browser import toast
from portal.states.route_params import route_arg
from portal.states.tab_owner import TabOwned
from portal.states.taking.rate import RateState

log = logging.getLogger(__name__)

TRY_AGAIN = "Please try again later."


class ScreenerState(TabOwned, rx.State):
    loaded: bool = False
    question: str = ""
    # 'single' | 'multiple' | 'matrix' ('' while nothing is shown)
    kind: str = ""
    # Answer texts of a single or multiple choice screener (the index is the position).
    answers: list[str] = []
    # Matrix: statements (rows) and answers (columns).
    rows: list[str] = []
    columns: list[str] = []
    allow_multiple: bool = False
    # {row index as text: [chosen answer indexes]}, every row present; row '0' for single/multiple.
    selection: dict[str, list[int]] = {}
    can_confirm: bool = False
    submitting: bool = False
    failed: bool = False
    error: str = ""

    _test_id: int | None = None
    _screener: dict[str, Any] = {}

    def _reset(self) -> None:
        self.loaded = False
        self.question, self.kind = "", ""
        self.answers, self.rows, self.columns = [], [], []
        self.allow_multiple = False
        self.selection = {}
        self.can_confirm = False
        self.submitting = False
        self.failed = False
        self.error = ""
        self._test_id = None
        self._screener = {}

    def _show(self, public: dict[str, Any]) -> None:
        self._screener = public
        self.question = public["question"]
        self.kind = public["type"]
        self.answers = [answer["text"] for answer in public["answers"]]
        self.rows = list(public["rows"])
        self.columns = list(public["columns"])
        self.allow_multiple = bool(public["allowMultiple"])
        self.selection = rules.empty_selection(public)
        self.can_confirm = False

    @rx.event
    async def begin(self):
        """The view is shown (the rating page decided it is the screener): load it for the route's test."""
        return await self._load(route_arg(self, "rate_test_id"))

    @rx.event
    async def load(self, test_id: int):
        return await self._load(test_id)

    async def _load(self, test_id: Any):
        """The rating page's view is 'screener': show the test's screener, or the failure text if
        the participant already failed it (a pass re-runs the rating page's load)."""
        self._reset()
        number = whole_number(test_id)
        user = await current_user(self)
        if number is None or user is None:
            self.loaded = True
            return None
        try:
            view = await db.run(service.load, test_id=number, respondent_key=respondent_key(user.account_id))
        except Exception:
            log.exception("screener could not be loaded")
            self.error = rules.verification_error(TRY_AGAIN)
            self.loaded = True
            return None
        self._test_id = number
        if view.screener is not None:
            self._show(view.screener)
        self.failed = view.passed is False
        self.loaded = True
        if view.passed is True:
            return self._passed()
        return None

    def _change(self, row: Any, index: Any, checked: Any) -> None:
        if not self.loaded or self.failed or self.submitting or not self._screener:
            return
        try:
            self.selection = rules.choose(self._screener, self.selection, row, index, checked)
        except ValueError:
            return  # not an answer of this screener: nothing changes
        self.can_confirm = rules.can_confirm(self._screener, self.selection)
        self.error = ""

    @rx.event
    def choose(self, row: int, index: int):
        """A radio button: answer `index` becomes the choice of `row` (0 for a single choice)."""
        self._change(row, index, True)

    @rx.event
    def toggle(self, row: int, index: int, checked: bool):
        """A checkbox: answer `index` of `row` (0 for a multiple choice) is ticked or unticked."""
        self._change(row, index, checked)

    @rx.event
    async def confirm(self):
        """Confirm: the server judges the answer; a pass re-runs the rating page's load, a failure
        shows the failure text."""
        if not self.loaded or self.failed or self.submitting or self._test_id is None or not self._screener:
            return
        if not rules.can_confirm(self._screener, self.selection):
            return
        user = await current_user(self)
        if user is None:
            return
        self.submitting = True
        yield
        try:
            passed = await db.run(
                service.submit,
                test_id=self._test_id,
                account_id=user.account_id,
                respondent_key=respondent_key(user.account_id),
                raw_selection=rules.as_submission(self._screener, self.selection),
            )
        except ServiceError as err:
            self.submitting = False
            self.error = rules.verification_error(err.message)
            yield toast("error", self.error)
            return
        except Exception:
            log.exception("screener answer could not be stored")
            self.submitting = False
            self.error = rules.verification_error(TRY_AGAIN)
            yield toast("error", self.error)
            return
        self.submitting = False
        if passed:
            yield self._passed()
            return
        self.failed = True

    def _passed(self):
        return RateState.reload_access
