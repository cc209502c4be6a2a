"""/admin/audit: the audit log, filtered by action, role and date."""

from __future__ import annotations

from typing import ClassVar

import reflex as rx

from portal import db
from portal.domain.accounts import CurrentUser
from portal.services.admin import audit as service
from portal.services.tables import TablePage, TableQuery, TableSpec
from portal.states.table import DataTableState


class AuditLogState(DataTableState, rx.State):
    table: ClassVar[TableSpec] = service.TABLE

    async def _fetch(self, caller: CurrentUser, query: TableQuery) -> TablePage:
        return await db.run(service.list_audit, actor_id=caller.account_id, query=query)
