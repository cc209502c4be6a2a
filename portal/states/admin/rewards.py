"""/admin/rewards: rewards with totals, marked paid, failed or canceled; the payout CSV."""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

import reflex as rx

from portal import db
from portal.domain import table as rules
from portal.domain.accounts import CurrentUser
from portal.services import payout_runner
from portal.services.admin import rewards as service
from portal.services.errors import ServiceError
from portal.services.tables import TablePage, TableQuery, TableSpec
from portal.states.admin.guard import caller_id
from portal.states.browser import toast
from portal.states.table import DataTableState

LABELS = {service.PAID: "paid", service.FAILED: "failed", service.CANCELED: "canceled"}
# What each mark does, said in its confirmation (one reward, several).
CONSEQUENCES = {
    service.PAID: (
        "The reward gets today's date as its payment date; paying credits any referral bonus.",
        "The rewards get today's date as their payment date; paying credits any referral bonus.",
    ),
    service.FAILED: (
        "The reward stays unpaid and can be paid again later.",
        "The rewards stay unpaid and can be paid again later.",
    ),
    service.CANCELED: ("The reward will not be paid.", "The rewards will not be paid."),
}
CONFIRM_LABELS = {service.PAID: "Mark paid", service.FAILED: "Mark failed", service.CANCELED: "Cancel rewards"}
NOTHING_TO_MARK = {
    service.PAID: "None of these rewards can be paid now (only approved, unpaid ones).",
    service.FAILED: "None of these rewards can be marked failed now (only approved, unpaid ones).",
    service.CANCELED: "None of these rewards can be canceled now (only unpaid ones).",
}


def confirm_title(status: str, count: int, amount: str) -> str:
    """'Mark 2 rewards paid ($50 in all)?', 'Cancel 1 reward ($35)?'."""
    noun = "reward" if count == 1 else "rewards"
    money = amount if count == 1 else f"{amount} in all"
    if status == service.CANCELED:
        return f"Cancel {count} {noun} ({money})?"
    return f"Mark {count} {noun} {LABELS.get(status, '')} ({money})?"


class AdminRewardsState(DataTableState, rx.State):
    table: ClassVar[TableSpec] = service.TABLE

    total_cents: int = 0
    confirm_status: str = ""  # the mark being confirmed ('' when no confirmation is open)
    confirm_ids: list[str] = []  # the rewards it is for
    confirm_count: int = 0  # how many of them the service would change ...
    confirm_cents: int = 0  # ... and their amounts together (the service's sum)

    state_totals: list[dict[str, str]] = []  # per state: how many rewards and their amount (issue 37)

    async def _fetch(self, caller: CurrentUser, query: TableQuery) -> TablePage:
        page = await db.run(service.list_rewards, actor_id=caller.account_id, query=query)
        self.state_totals = await db.run(service.totals_by_state, actor_id=caller.account_id, query=query)
        return page

    @rx.event
    async def pay_now(self, reward_id: Any):
        """'Pay now': the approved reward is ordered from the payout provider at once (the service checks the caller
        and that the reward may be ordered)."""
        try:
            placed = await asyncio.to_thread(payout_runner.pay_now, await caller_id(self), reward_id)
        except ServiceError as err:
            return toast("error", err.message)
        await self._reload()
        return toast(
            "success" if placed else "error",
            "The reward was sent." if placed else "The order failed; the job tries again.",
        )

    def _after_fetch(self, result: TablePage) -> None:
        self.total_cents = result.total_open

    @rx.event
    async def load_page(self):
        """on mount: the payable rewards first (the filter can be changed)."""
        self._filters = [{"name": "payable", "type": "list", "values": ["yes"]}]
        self.draft_selected = ["payable:yes"]
        self.applied_filter_count, self.page, self.selected_ids = 1, 1, []
        await self._reload()

    async def _ask(self, ids: list[str], status: Any):
        """Open the confirmation, naming how many rewards the mark changes and their amount, as the service counts
        them."""
        if not isinstance(status, str) or status not in LABELS or not ids:
            return None
        count, cents = await db.run(service.mark_preview, actor_id=await caller_id(self), reward_ids=ids, status=status)
        if count == 0:
            return toast("error", NOTHING_TO_MARK[status])
        self.confirm_status, self.confirm_ids, self.confirm_count, self.confirm_cents = status, ids, count, cents
        return None

    @rx.event
    async def ask(self, status: Any):
        """The bulk bar: the selected rewards."""
        return await self._ask(list(self.selected_ids), status)

    @rx.event
    async def ask_one(self, reward_id: Any, status: Any):
        """A row's action: that reward."""
        return await self._ask([reward_id] if isinstance(reward_id, str) else [], status)

    @rx.event
    def cancel(self):
        self.confirm_status, self.confirm_ids = "", []

    @rx.event
    async def confirm(self):
        status, ids = self.confirm_status, list(self.confirm_ids)
        self.confirm_status, self.confirm_ids = "", []
        if not isinstance(status, str) or status not in LABELS or not ids:
            return None
        count = await db.run(service.mark, actor_id=await caller_id(self), reward_ids=ids, status=status)
        self.selected_ids = [i for i in self.selected_ids if i not in ids]
        await self._reload()
        noun = "reward" if count == 1 else "rewards"
        return toast("success", f"{count} {noun} marked {LABELS[status]}.")

    @rx.event
    async def export_payouts(self):
        name, text = await db.run(service.payout_csv, actor_id=await caller_id(self))
        return rx.download(data=text.encode("utf-8"), filename=name, mime_type="text/csv;charset=utf-8")

    @rx.var
    def total_text(self) -> str:
        return rules.format_money(self.total_cents) or "$0"

    @rx.var
    def confirm_text(self) -> str:
        return confirm_title(self.confirm_status, self.confirm_count, rules.format_money(self.confirm_cents) or "$0")

    @rx.var
    def confirm_body(self) -> str:
        pair = CONSEQUENCES.get(self.confirm_status, ("", ""))
        text = pair[0] if self.confirm_count == 1 else pair[1]
        left = len(self.confirm_ids) - self.confirm_count
        if left > 0:
            text += (
                f" {left} of the {len(self.confirm_ids)} selected {'is' if left == 1 else 'are'} left as "
                f"{'it is' if left == 1 else 'they are'}."
            )
        return text

    @rx.var
    def confirm_label(self) -> str:
        return CONFIRM_LABELS.get(self.confirm_status, "Confirm")
