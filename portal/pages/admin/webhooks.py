"""/admin/webhooks: the webhook delivery log (one row per event and subscription) with its status, attempts and the
receiver's last answer; 'Replay' sends the same event again (issue 39)."""

from __future__ import annotations

import reflex as rx
from reflex.vars import ObjectVar

from portal.components.admin import admin_layout
from portal.components.admin_pages import staff_page
from portal.components.data_table import Column, FilterOption, FilterSpec, data_table
from portal.domain import webhooks as rules
from portal.domain.staff import roles
from portal.states.admin.webhooks import AdminWebhooksState as W


def _error(row: ObjectVar[dict[str, str]]) -> rx.Component:
    return rx.text(
        row["last_error"],
        size="1",
        color="var(--red-11)",
        title=row["last_error"],
        style={"whiteSpace": "normal", "maxWidth": "360px", "overflowWrap": "anywhere"},
    )


def _status(row: ObjectVar[dict[str, str]]) -> rx.Component:
    """The status, and 'Replay' beside it (kept in view on narrow screens)."""
    color = rx.match(
        row["status"],
        (rules.DELIVERED, "green"),
        (rules.RETRYING, "amber"),
        (rules.FAILED, "red"),
        "gray",
    )
    replay = rx.button(
        rx.icon("rotate-ccw", size=14),
        "Replay",
        size="1",
        variant="soft",
        on_click=W.replay(row["id"]),
        class_name="dt-action",
        aria_label="Replay event " + row["event_id"].to(str),
    )
    return rx.hstack(
        rx.badge(row["status_label"], color_scheme=color, variant="soft", high_contrast=True),  # AA contrast
        rx.cond(row["replay"] != "", replay),
        spacing="2",
        align="center",
    )


def _event(row: ObjectVar[dict[str, str]]) -> rx.Component:
    return rx.vstack(
        rx.text(row["event"], size="2"),
        rx.text(row["event_id"], size="1", color="var(--gray-11)", style={"fontFamily": "var(--code-font-family)"}),
        spacing="0",
    )


def _target(row: ObjectVar[dict[str, str]]) -> rx.Component:
    return rx.vstack(
        rx.text(row["url"], size="2", style={"overflowWrap": "anywhere", "maxWidth": "320px"}),
        rx.text("Key: ", row["key"], size="1", color="var(--gray-11)"),
        spacing="0",
    )


COLUMNS = [
    Column("event", "Event", render=_event, min_width="220px"),
    Column("status_label", "Status", render=_status, min_width="190px"),
    Column("attempts", "Attempts", min_width="80px"),
    Column("last_status", "Last answer", min_width="90px"),
    Column("last_error", "Last error", render=_error, min_width="220px"),
    Column("url", "Sent to", render=_target, min_width="220px"),
    Column("created", "Created (UTC)", sort_key="createdOn", min_width="160px"),
    Column("next_try", "Next try (UTC)", min_width="150px"),
]
FILTERS = [
    FilterSpec("status", "Status", "list", tuple(FilterOption(s, rules.STATUS_LABELS[s]) for s in rules.STATUSES)),
    FilterSpec("event", "Event", "list", tuple(FilterOption(e, e) for e in rules.EVENTS)),
    FilterSpec("createdOn", "Created", "range"),
]


@staff_page("/admin/webhooks", "Webhooks", on_load=[W.load], permission=roles.WEBHOOKS, menu="Webhooks")
def webhooks_page() -> rx.Component:
    return admin_layout(
        rx.vstack(
            rx.text(
                "Webhook deliveries to API keys' subscriptions, newest first: each event is retried with backoff for "
                "more than a day. Replay sends the same event again, with the same event id.",
                size="2",
                color="var(--gray-11)",
            ),
            data_table(
                W,
                table_id="admin-webhooks",
                columns=COLUMNS,
                filters=FILTERS,
                search_placeholder="Search event id or URL",
            ),
            spacing="4",
            width="100%",
        ),
    )
