"""/admin/audit: the audit log, filtered by action, role and date."""

from __future__ import annotations

from typing import Any, ClassVar

import reflex as rx

from portal import db
from portal.domain.accounts import CurrentUser
from portal.services.admin import audit as service
from portal.services.tables import TablePage, TableQuery
from portal.states.table import DataTableState


class AuditLogState(DataTableState, rx.State):
    sortable_columns: ClassVar[tuple[str, ...]] = tuple(service.SORTABLE)
    filter_specs: ClassVar[dict[str, dict[str, Any]]] = service.FILTERS

    async def _fetch(self, caller: CurrentUser, query: TableQuery) -> TablePage:
        return await db.run(service.list_audit, actor_id=caller.account_id, query=query)
