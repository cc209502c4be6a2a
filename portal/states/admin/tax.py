"""/admin/tax: participants near the yearly tax reporting threshold; hold their payouts, or record their details."""

from __future__ import annotations

from typing import Any

import reflex as rx

from portal import db
from portal.services.admin import tax as service
from portal.services.errors import ServiceError
from portal.states.admin.guard import caller_id
from portal.states.browser import toast


class AdminTaxState(rx.State):
    rows: list[dict[str, str]] = []
    threshold: str = ""

    async def _reload(self) -> None:
        self.rows = await db.run(service.near_threshold, actor_id=await caller_id(self))

    @rx.event
    async def load_page(self):
        from portal.domain import table as table_rules

        self.threshold = table_rules.format_money(service.threshold_cents()) or "$0"
        try:
            await self._reload()
        except ServiceError:
            self.rows = []

    @rx.event
    async def hold(self, account_id: Any):
        await db.run(service.hold, actor_id=await caller_id(self), account_id=account_id)
        await self._reload()
        return toast("success", "Their payouts are held until their tax details are on file.")

    @rx.event
    async def details_on_file(self, account_id: Any):
        await db.run(service.details_on_file, actor_id=await caller_id(self), account_id=account_id)
        await self._reload()
        return toast("success", "Tax details recorded: their payouts are released.")
