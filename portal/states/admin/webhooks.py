"""/admin/webhooks: the webhook delivery log, and 'Replay' (issue 39)."""

from __future__ import annotations

from typing import Any, ClassVar

import reflex as rx

from portal import db
from portal.domain.accounts import CurrentUser
from portal.services.admin import webhooks as service
from portal.services.errors import ServiceError
from portal.services.tables import TablePage, TableQuery, TableSpec
from portal.states.admin.guard import caller_id
from portal.states.browser import toast
from portal.states.table import DataTableState


class AdminWebhooksState(DataTableState, rx.State):
    table: ClassVar[TableSpec] = service.TABLE

    async def _fetch(self, caller: CurrentUser, query: TableQuery) -> TablePage:
        return await db.run(service.list_deliveries, actor_id=caller.account_id, query=query)

    @rx.event
    async def replay(self, delivery_id: Any):
        try:
            said = await db.run(service.replay, actor_id=await caller_id(self), delivery_id=delivery_id)
        except ServiceError as refused:
            await self._reload()
            return toast("error", refused.message)
        await self._reload()
        return toast("success", said)
