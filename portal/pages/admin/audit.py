"""/admin/audit: every staff action, newest first."""

from __future__ import annotations

import reflex as rx

from portal.components.admin import admin_layout
from portal.components.admin_pages import staff_page
from portal.components.data_table import Column, FilterOption, FilterSpec, data_table
from portal.domain.staff import roles
from portal.services.admin.audit import ACTIONS
from portal.states.admin.audit import AuditLogState as A

COLUMNS = [
    Column("when", "When (UTC)", sort_key="createdOn", min_width="160px"),
    Column("actor", "Who", min_width="180px"),
    Column("role", "Role"),
    Column("action", "Action", min_width="180px"),
    Column("target", "Target"),
    Column("before", "Before", min_width="160px"),
    Column("after", "After", min_width="200px"),
]
FILTERS = [
    FilterSpec("action", "Action", "list", tuple(FilterOption(k, v) for k, v in ACTIONS.items())),
    FilterSpec("role", "Role", "list", tuple(FilterOption(r, roles.role_label(r)) for r in roles.ROLES)),
    FilterSpec("createdOn", "Date", "range"),
]


@staff_page("/admin/audit", "Audit log", on_load=[A.load], permission=roles.AUDIT, menu="Audit log")
def audit_page() -> rx.Component:
    return admin_layout(
        rx.vstack(
            rx.text(
                "Every staff action, written with the change itself. Entries cannot be edited or deleted.",
                size="2",
                color="var(--gray-11)",
            ),
            data_table(
                A,
                table_id="admin-audit",
                columns=COLUMNS,
                filters=FILTERS,
                search_placeholder="Search who or target id",
            ),
            spacing="4",
            width="100%",
        ),
    )
