"""/admin/rewards: rewards with totals, marked paid, failed or canceled; the payout CSV."""

from __future__ import annotations

from typing import Any, ClassVar

import reflex as rx

from portal import db
from portal.domain import table as rules
from portal.domain.accounts import CurrentUser
from portal.services.admin import rewards as service
from portal.services.tables import TablePage, TableQuery
from portal.states.admin.guard import caller_id
from portal.states.browser import toast
from portal.states.table import DataTableState

LABELS = {service.PAID: "paid", service.FAILED: "failed", service.CANCELED: "canceled"}


class AdminRewardsState(DataTableState, rx.State):
    sortable_columns: ClassVar[tuple[str, ...]] = tuple(service.SORTABLE)
    filter_specs: ClassVar[dict[str, dict[str, Any]]] = service.FILTERS
    extra_page_sizes: ClassVar[tuple[int, ...]] = (100, 200)

    total_cents: int = 0
    confirm_status: str = ""

    async def _fetch(self, caller: CurrentUser, query: TableQuery) -> TablePage:
        return await db.run(service.list_rewards, actor_id=caller.account_id, query=query)

    def _after_fetch(self, result: TablePage) -> None:
        self.total_cents = result.total_open

    @rx.event
    async def load_page(self):
        """on mount: the payable rewards first (the filter can be changed)."""
        self._filters = [{"name": "payable", "type": "list", "values": ["yes"]}]
        self.draft_selected = ["payable:yes"]
        self.applied_filter_count, self.page, self.selected_ids = 1, 1, []
        await self._reload()

    @rx.event
    def ask(self, status: Any):
        if isinstance(status, str) and status in LABELS and self.selected_ids:
            self.confirm_status = status

    @rx.event
    def cancel(self):
        self.confirm_status = ""

    async def _mark(self, ids: list[str], status: str):
        count = await db.run(service.mark, actor_id=await caller_id(self), reward_ids=ids, status=status)
        self.selected_ids = [i for i in self.selected_ids if i not in ids]
        await self._reload()
        noun = "reward" if count == 1 else "rewards"
        return toast("success", f"{count} {noun} marked {LABELS[status]}.")

    @rx.event
    async def confirm(self):
        status, self.confirm_status = self.confirm_status, ""
        if not isinstance(status, str) or status not in LABELS:
            return None
        return await self._mark(list(self.selected_ids), status)

    @rx.event
    async def mark_one(self, reward_id: Any, status: Any):
        if not isinstance(status, str) or status not in LABELS:
            return None
        return await self._mark([reward_id] if isinstance(reward_id, str) else [], status)

    @rx.event
    async def export_payouts(self):
        name, text = await db.run(service.payout_csv, actor_id=await caller_id(self))
        return rx.download(data=text.encode("utf-8"), filename=name, mime_type="text/csv;charset=utf-8")

    @rx.var
    def total_text(self) -> str:
        return rules.format_money(self.total_cents) or "$0"

    @rx.var
    def confirm_text(self) -> str:
        count = len(self.selected_ids)
        return f"Mark {count} {'reward' if count == 1 else 'rewards'} {LABELS.get(self.confirm_status, '')}?"
