"""/admin/appeals: participants' appeals against rejections; a staff member other than the one who rejected
overturns or upholds each (services/admin/appeals.py)."""

from __future__ import annotations

import reflex as rx
from reflex.vars import ObjectVar

from portal.components.admin import admin_layout, status_badge
from portal.components.admin_pages import staff_page
from portal.components.data_table import Column, FilterOption, FilterSpec, RowAction, data_table
from portal.components.form import form_error, textarea_field
from portal.domain.staff import appeals as rules
from portal.domain.staff import roles
from portal.states.admin.appeals import AdminAppealsState as A

MUTED = "var(--gray-11)"


WRAP = {"whiteSpace": "normal", "overflowWrap": "anywhere"}  # the table's cells do not wrap by themselves


def _rejection(row: ObjectVar[dict[str, str]]) -> rx.Component:
    return rx.vstack(
        rx.text(row["reason"], size="2", style=WRAP),
        rx.cond(row["evidence"] != "", rx.text(row["evidence"], size="1", color=MUTED, style=WRAP)),
        rx.cond(
            row["rejected_by"] != "", rx.text("Rejected by ", row["rejected_by"], size="1", color=MUTED, style=WRAP)
        ),
        spacing="1",
        max_width="280px",
    )


def _message(row: ObjectVar[dict[str, str]]) -> rx.Component:
    return rx.text(
        row["message"], size="2", style={"whiteSpace": "pre-wrap", "overflowWrap": "anywhere"}, max_width="360px"
    )


def _status(row: ObjectVar[dict[str, str]]) -> rx.Component:
    return rx.vstack(
        status_badge(row["status_label"]),
        rx.cond(
            row["own"] != "",
            rx.text("You rejected it: another staff member decides.", size="1", color=MUTED, style=WRAP),
        ),
        rx.cond(row["decided_by"] != "", rx.text("By ", row["decided_by"], size="1", color=MUTED, style=WRAP)),
        rx.cond(row["note"] != "", rx.text(row["note"], size="1", color=MUTED, style=WRAP)),
        spacing="1",
        max_width="240px",
    )


COLUMNS = [
    Column("participant", "Participant", min_width="200px"),
    Column("test", "Test", min_width="200px"),
    Column("reason", "Rejection", render=_rejection, min_width="220px"),
    Column("message", "Appeal", render=_message, min_width="260px"),
    Column("appealed", "Appealed", sort_key="createdOn", min_width="140px"),
    Column("status_label", "Status", render=_status, min_width="160px"),
]
FILTERS = [
    FilterSpec("status", "Status", "list", tuple(FilterOption(s, rules.STATUS_LABELS[s]) for s in rules.STATUSES)),
    FilterSpec("createdOn", "Appealed", "range"),
]


def _decide_dialog() -> rx.Component:
    return rx.dialog.root(
        rx.dialog.content(
            rx.dialog.title(A.decide_title),
            rx.dialog.description(A.decide_text, size="2"),
            rx.vstack(
                textarea_field(
                    "Note",
                    helper=rx.cond(
                        A.decide_overturn, "Optional; the participant reads it.", "Required; the participant reads it."
                    ),
                    id="appeal-note",
                    default_value=A.decide_note,
                    on_blur=A.set_decide_note,
                    size="2",
                    key=A.decide_id,
                ),
                form_error(A.decide_error, id="appeal-decide-error"),
                spacing="3",
                width="100%",
                margin_top="12px",
            ),
            rx.hstack(
                rx.button("Cancel", variant="soft", color_scheme="gray", on_click=A.cancel_decide),
                rx.button(
                    rx.cond(A.decide_overturn, "Overturn", "Uphold"),
                    high_contrast=True,
                    on_click=A.confirm_decide,
                    id="appeal-decide-confirm",
                ),
                justify="end",
                spacing="3",
                margin_top="16px",
            ),
        ),
        open=A.decide_id != "",
        on_open_change=lambda _open: A.cancel_decide(),
    )


@staff_page("/admin/appeals", "Appeals", on_load=[A.load_page], permission=roles.DECIDE_REVIEWS, menu="Appeals")
def appeals_page() -> rx.Component:
    actions = [
        RowAction("Overturn", lambda row: A.ask_overturn(row["id"]), available_when="decidable", icon="check"),
        RowAction("Uphold", lambda row: A.ask_uphold(row["id"]), available_when="decidable", icon="x"),
    ]
    return admin_layout(
        rx.vstack(
            rx.text(
                A.open_appeals,
                rx.cond(A.open_appeals == 1, " appeal waits", " appeals wait"),
                " for a decision. Participants may appeal a rejection once, within ",
                str(rules.APPEAL_DAYS),
                " days; the staff member who rejected a review cannot decide its appeal.",
                size="2",
                color=MUTED,
                id="appeals-open",
            ),
            data_table(
                A,
                table_id="admin-appeals",
                columns=COLUMNS,
                actions=actions,
                filters=FILTERS,
                search_placeholder="Search participant or test",
            ),
            spacing="4",
            width="100%",
        ),
        _decide_dialog(),
    )
