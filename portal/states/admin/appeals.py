"""/admin/appeals: participants' appeals against rejections; overturn or uphold (services/admin/appeals.py)."""

from __future__ import annotations

from typing import Any, ClassVar

import reflex as rx

from portal import db
from portal.domain.accounts import CurrentUser
from portal.domain.staff import appeals as rules
from portal.services.admin import appeals as service
from portal.services.tables import TablePage, TableQuery, TableSpec
from portal.states.admin.guard import caller_id
from portal.states.browser import toast
from portal.states.table import DataTableState


class AdminAppealsState(DataTableState, rx.State):
    table: ClassVar[TableSpec] = service.TABLE

    decide_id: str = ""  # the appeal being decided ('' when the dialog is shut)
    decide_overturn: bool = False
    decide_note: str = ""
    decide_error: str = ""
    open_appeals: int = 0

    async def _fetch(self, caller: CurrentUser, query: TableQuery) -> TablePage:
        page = await db.run(service.list_appeals, actor_id=caller.account_id, query=query)
        self.open_appeals = await db.run(service.open_count, actor_id=caller.account_id)
        return page

    @rx.event
    async def load_page(self):
        """On load: the open appeals (the status filter can be changed)."""
        self._filters = [{"name": "status", "type": "list", "values": [rules.OPEN]}]
        self.draft_selected = [f"status:{rules.OPEN}"]
        self.applied_filter_count = 1
        self.page, self.selected_ids, self.decide_id = 1, [], ""
        await self._reload()

    @rx.event
    def ask_overturn(self, appeal_id: Any):
        self._ask(appeal_id, True)

    @rx.event
    def ask_uphold(self, appeal_id: Any):
        self._ask(appeal_id, False)

    def _ask(self, appeal_id: Any, overturn: bool) -> None:
        if isinstance(appeal_id, str) and appeal_id:
            self.decide_id, self.decide_overturn, self.decide_note, self.decide_error = appeal_id, overturn, "", ""

    @rx.event
    def set_decide_note(self, note: Any):
        self.decide_note = note[: rules.NOTE_MAX + 1] if isinstance(note, str) else ""
        self.decide_error = ""

    @rx.event
    def cancel_decide(self):
        self.decide_id = ""

    @rx.event
    async def confirm_decide(self):
        if problem := rules.note_problem(self.decide_note, overturn=self.decide_overturn):
            self.decide_error = problem
            return None
        appeal_id, self.decide_id = self.decide_id, ""
        if not appeal_id:
            return None
        status = await db.run(
            service.decide_appeal,
            actor_id=await caller_id(self),
            appeal_id=appeal_id,
            overturn=self.decide_overturn,
            note=self.decide_note,
        )
        await self._reload()
        return toast("success", f"Appeal {rules.STATUS_LABELS.get(status, status).lower()}: the participant is told.")

    @rx.var
    def decide_title(self) -> str:
        return "Overturn the rejection?" if self.decide_overturn else "Uphold the rejection?"

    @rx.var
    def decide_text(self) -> str:
        if self.decide_overturn:
            return "The review becomes approved and its reward payable. The participant is told by e-mail."
        return "The rejection stands. The participant is told by e-mail, with your note."
