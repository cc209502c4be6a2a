"""/admin/outbox: the e-mail outbox with each e-mail's delivery status, and 'Retry now'."""

from __future__ import annotations

from typing import Any, ClassVar

import reflex as rx

from portal import db
from portal.domain.accounts import CurrentUser
from portal.services.admin import outbox as service
from portal.services.tables import TablePage, TableQuery, TableSpec
from portal.states.admin.guard import caller_id
from portal.states.browser import toast
from portal.states.table import DataTableState


class AdminOutboxState(DataTableState, rx.State):
    table: ClassVar[TableSpec] = service.TABLE

    async def _fetch(self, caller: CurrentUser, query: TableQuery) -> TablePage:
        return await db.run(service.list_outbox, actor_id=caller.account_id, query=query)

    @rx.event
    async def retry(self, email_id: Any):
        await db.run(service.retry_now, actor_id=await caller_id(self), email_id=email_id)
        await self._reload()
        return toast("success", "The e-mail is due now: the sender takes it in its next round.")
