"""/admin/reports (issue 38): participants' problem reports, newest first (?test=ID: one test's), and the tests
they paused, with 'Resume' and 'Close and pay reporters'."""

from __future__ import annotations

from typing import Any

import reflex as rx

from portal import db
from portal.domain.ids import whole_number
from portal.services.admin import problem_reports as service
from portal.services.errors import ServiceError
from portal.states.admin.guard import caller_id, staff_load
from portal.states.browser import toast
from portal.states.tab_owner import TabOwned


class AdminReportsState(TabOwned, rx.State):
    reports: list[dict[str, str]] = []
    paused: list[dict[str, str]] = []
    test_filter: str = ""
    loaded: bool = False
    closing_id: str = ""  # the paused test whose close waits for confirmation
    closing_name: str = ""

    async def _reload(self) -> None:
        found = await staff_load(self, service.reports, test_id=self.test_filter or None)
        if found is not None:
            self.reports, self.paused, self.loaded = found["reports"], found["paused"], True

    @rx.event
    async def load_page(self):
        number = whole_number(self.router.url.query_parameters.get("test", ""))
        self.test_filter = str(number) if number else ""
        self.closing_id = ""
        await self._reload()

    @rx.event
    async def refresh(self):
        await self._reload()

    @rx.event
    async def resume(self, test_id: Any):
        try:
            moved = await db.run(service.resume, actor_id=await caller_id(self), test_id=test_id)
        except ServiceError as err:
            await self._reload()
            return toast("error", err.message)
        await self._reload()
        noun = "session's" if moved == 1 else "sessions'"
        return toast("success", f"The test runs again; {moved} open {noun} time moved on by the pause.")

    @rx.event
    def ask_close(self, test_id: Any):
        found = next((t for t in self.paused if isinstance(test_id, str) and t["id"] == test_id), None)
        if found is not None:
            self.closing_id, self.closing_name = found["id"], found["name"]

    @rx.event
    def cancel_close(self):
        self.closing_id = ""

    @rx.event
    async def confirm_close(self):
        test_id, self.closing_id = self.closing_id, ""
        if not test_id:
            return None
        try:
            paid = await db.run(service.close_and_pay, actor_id=await caller_id(self), test_id=test_id)
        except ServiceError as err:
            await self._reload()
            return toast("error", err.message)
        await self._reload()
        return toast("success", f"The test is closed; {paid} reporter{'s' if paid != 1 else ''} paid pro rata.")
