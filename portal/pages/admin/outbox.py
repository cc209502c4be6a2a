"""/admin/outbox: e-mails with their delivery status, attempts and last error; 'Retry now'."""

from __future__ import annotations

import reflex as rx
from reflex.vars import ObjectVar

from portal.components.admin import admin_layout
from portal.components.admin_pages import staff_page
from portal.components.data_table import Column, FilterOption, FilterSpec, data_table
from portal.domain.staff import outbox_status, roles
from portal.states.admin.outbox import AdminOutboxState as O


def _error(row: ObjectVar[dict[str, str]]) -> rx.Component:
    return rx.text(
        row["last_error"],
        size="1",
        color="var(--red-11)",
        title=row["last_error"],
        style={"whiteSpace": "normal", "maxWidth": "360px", "overflowWrap": "anywhere"},
    )


def _status(row: ObjectVar[dict[str, str]]) -> rx.Component:
    """The status, and 'Retry now' beside it on an unsent e-mail (kept in view on narrow screens)."""
    color = rx.match(
        row["status"],
        (outbox_status.SENT, "green"),
        (outbox_status.RETRYING, "amber"),
        (outbox_status.FAILED, "red"),
        "gray",
    )
    retry = rx.button(
        rx.icon("send", size=14),
        "Retry now",
        size="1",
        variant="soft",
        on_click=O.retry(row["id"]),
        class_name="dt-action",
    )
    return rx.hstack(
        rx.badge(row["status_label"], color_scheme=color, variant="soft"),
        rx.cond(row["retry"] != "", retry),
        spacing="2",
        align="center",
    )


def _subject(row: ObjectVar[dict[str, str]]) -> rx.Component:
    return rx.vstack(
        rx.text(row["subject"], size="2"), rx.text(row["kind"], size="1", color="var(--gray-11)"), spacing="0"
    )


COLUMNS = [
    Column("address", "Address", min_width="200px"),
    Column("status_label", "Status", render=_status, min_width="190px"),
    Column("attempts", "Attempts", min_width="80px"),
    Column("last_error", "Last error", render=_error, min_width="220px"),
    Column("subject", "Subject", render=_subject, min_width="200px"),
    Column("created", "Created (UTC)", sort_key="createdOn", min_width="150px"),
    Column("next_try", "Next try (UTC)", min_width="140px"),
]
FILTERS = [
    FilterSpec(
        "status", "Status", "list", tuple(FilterOption(s, outbox_status.LABELS[s]) for s in outbox_status.STATUSES)
    ),
    FilterSpec("createdOn", "Created", "range"),
]


@staff_page("/admin/outbox", "Outbox", on_load=[O.load], permission=roles.OUTBOX, menu="Outbox")
def outbox_page() -> rx.Component:
    return admin_layout(
        rx.vstack(
            rx.text(
                "E-mails the portal sends, newest first. Their text is not shown: it holds personal sign-in and "
                "verification links.",
                size="2",
                color="var(--gray-11)",
            ),
            data_table(
                O, table_id="admin-outbox", columns=COLUMNS, filters=FILTERS, search_placeholder="Search address"
            ),
            spacing="4",
            width="100%",
        ),
    )
