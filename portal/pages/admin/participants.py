"""/admin/participants: every participant, with bulk verification; /admin/participants/changes: the
queue of profile change requests."""

from __future__ import annotations

from typing import Any

import reflex as rx
from reflex.vars import ObjectVar

from portal.components.admin import admin_layout, confirm_dialog, status_badge
from portal.components.admin_pages import staff_page
from portal.components.data_table import Column, FilterOption, FilterSpec, RowAction, data_table
from portal.components.form import select_field
from portal.components.form.actions import form
from portal.components.form.inputs import text_field, textarea_field
from portal.domain.geography import country_name
from portal.domain.reference_data import AUDIENCES, INDUSTRIES, SENIORITY_OPTIONS
from portal.domain.staff import roles
from portal.states.admin.guard import StaffState
from portal.states.admin.participants import AdminParticipantsState as S
from portal.states.admin.participants import ChangeRequestsState as C

# The filter panel offers the panel's main countries; the service takes any ISO code.
PANEL_COUNTRIES = ("US", "GB", "CA", "DE", "FR", "NL", "IE", "AU", "IN", "ES", "SE", "PL")

FILTERS = [
    FilterSpec(
        "verified",
        "Verified",
        "list",
        (FilterOption("yes", "Verified"), FilterOption("no", "Not verified")),
        is_multi=False,
    ),
    FilterSpec("changeRequest", "Change request", "list", (FilterOption("pending", "Pending change request"),)),
    FilterSpec("country", "Country", "list", tuple(FilterOption(c, country_name(c) or c) for c in PANEL_COUNTRIES)),
    FilterSpec(
        "seniority",
        "Seniority",
        "list",
        tuple(FilterOption(o.value, o.label.split(" (")[0]) for o in SENIORITY_OPTIONS),
    ),
    FilterSpec("industry", "Industry", "list", tuple(FilterOption(name, name) for name in INDUSTRIES)),
    FilterSpec("audience", "Audience", "list", tuple(FilterOption(a.name, a.name) for a in AUDIENCES)),
    FilterSpec(
        "status",
        "Account",
        "list",
        (FilterOption("active", "Active"), FilterOption("deactivated", "Deactivated")),
        is_multi=False,
    ),
    FilterSpec(
        "role",
        "Role",
        "list",
        (FilterOption("participant", "Participant"), *(FilterOption(r, roles.role_label(r)) for r in roles.ROLES)),
    ),
    FilterSpec("createdOn", "Signed up", "range"),
]

COLUMNS = [
    Column("name", "Name", sort_key="name", min_width="160px"),
    Column("email", "E-mail", sort_key="email", min_width="200px"),
    Column("work_email", "Work e-mail", min_width="200px"),
    Column("country", "Country", sort_key="country"),
    Column("seniority", "Seniority", min_width="140px"),
    Column("verified", "Verified", render=lambda row: status_badge(row["verified"])),
    Column(
        "change_request",
        "Change request",
        render=lambda row: rx.cond(row["change_request"] != "", status_badge("Pending"), rx.fragment()),
    ),
    Column("status", "Account", render=lambda row: status_badge(row["status"])),
    Column("role", "Role"),
    Column("joined", "Signed up", sort_key="createdOn"),
]


def participants_table(
    state: Any = S, table_id: str = "admin-participants", *, with_actions: bool = True, selectable: bool | None = None
) -> rx.Component:
    actions = (
        [
            RowAction("Profile", lambda row: rx.redirect(row["profile_url"]), icon="user"),
            RowAction("Deactivate", lambda row: S.ask_deactivate(row["id"]), available_when="can_deactivate"),
            RowAction("Reactivate", lambda row: S.reactivate(row["id"]), available_when="can_reactivate"),
            RowAction("Role", lambda row: S.open_role(row["id"], row["role_key"]), available_when="can_change_role"),
        ]
        if with_actions
        else []
    )
    return data_table(
        state,
        table_id=table_id,
        columns=COLUMNS,
        actions=actions,
        filters=FILTERS,
        selectable=with_actions if selectable is None else selectable,
        selection_noun="participants",
        search_placeholder="Search name, e-mail or work e-mail",
    )


def _bulk_bar() -> rx.Component:
    return rx.cond(
        (S.selected_ids.length() > 0) & StaffState.can[roles.VERIFY],
        rx.hstack(
            rx.text(S.selection_text, weight="medium", size="2", id="admin-selection-count"),
            rx.button("Verify", on_click=S.ask("verify"), id="bulk-verify", size="2"),
            rx.button(
                "Unverify",
                on_click=S.ask("unverify"),
                id="bulk-unverify",
                size="2",
                variant="soft",
                color_scheme="gray",
            ),
            spacing="3",
            align="center",
            class_name="admin-panel",
            wrap="wrap",
        ),
    )


def _role_dialog() -> rx.Component:
    return rx.dialog.root(
        rx.dialog.content(
            rx.dialog.title("Change role"),
            select_field(
                "Role",
                id="role-choice",
                value=S.role_choice,
                on_change=S.choose_role,
                size="2",
                options=[
                    ("participant", "Participant (no staff access)"),
                    *((r, roles.role_label(r)) for r in roles.ROLES),
                ],
            ),
            rx.hstack(
                rx.button("Cancel", variant="soft", color_scheme="gray", on_click=S.close_role),
                rx.button("Save role", on_click=S.save_role, id="role-save"),
                justify="end",
                spacing="3",
                margin_top="16px",
            ),
        ),
        open=S.role_dialog_id != "",
    )


def _group_dialog() -> rx.Component:
    """One message to the participants the table shows (or the selected rows), with the count before sending."""
    return rx.dialog.root(
        rx.dialog.content(
            rx.dialog.title("Message participants"),
            rx.dialog.description(S.group_label, size="2", id="group-count"),
            form(
                text_field("Subject", id="group-subject", name="subject", error=S.group_subject_error, max_length=120),
                textarea_field(
                    "Message", id="group-body", name="body", rows="6", error=S.group_body_error, max_length=5000
                ),
                rx.hstack(
                    rx.button("Cancel", type="button", variant="soft", color_scheme="gray", on_click=S.close_group),
                    rx.button("Send", type="submit", id="group-send"),
                    justify="end",
                    spacing="3",
                    width="100%",
                ),
                on_submit=S.send_group,
                id="group-form",
            ),
        ),
        open=S.group_open,
        on_open_change=lambda _open: S.close_group(),
    )


@staff_page("/admin/participants", "Participants", on_load=[S.load], menu="Participants", also_at=("/admin",))
def participants_page() -> rx.Component:
    actions = rx.hstack(
        rx.cond(
            StaffState.can[roles.MESSAGE],
            rx.button(
                rx.icon("mail", size=16), "Message", variant="soft", size="2", on_click=S.open_group, id="group-message"
            ),
        ),
        rx.cond(
            StaffState.can[roles.CHANGE_REQUESTS],
            rx.link(rx.button("Change requests", variant="soft", size="2"), href="/admin/participants/changes"),
        ),
        spacing="3",
    )
    return admin_layout(
        rx.vstack(_bulk_bar(), participants_table(), spacing="4", width="100%"),
        confirm_dialog(
            S.confirm_action != "",
            S.confirm_text,
            "Verified participants can take tests that need verification.",
            "Confirm",
            S.confirm,
            S.cancel,
            "bulk-confirm",
        ),
        _role_dialog(),
        _group_dialog(),
        confirm_dialog(
            S.deactivate_id != "",
            rx.text("Deactivate ", S.deactivate_email, "?"),
            "They are signed out everywhere at once and cannot sign in; their invites, reviews and rewards are kept. "
            "You can reactivate the account later.",
            "Deactivate",
            S.confirm_deactivate,
            S.cancel_deactivate,
            "deactivate-confirm",
            color="red",
        ),
        actions=actions,
    )


def _change_card(row: ObjectVar[dict[str, Any]]) -> rx.Component:
    return rx.box(
        rx.hstack(
            rx.vstack(
                rx.text(row["who"], weight="bold"),
                rx.text(row["email"], " · submitted ", row["submitted"], size="2", color="var(--gray-11)"),
                spacing="0",
            ),
            rx.spacer(),
            rx.button(
                "Approve",
                on_click=C.decide(row["id"], True),
                size="2",
                color_scheme="green",
                custom_attrs={"data-testid": "approve-change"},
            ),
            rx.button(
                "Decline",
                on_click=C.decide(row["id"], False),
                size="2",
                variant="soft",
                color_scheme="red",
                custom_attrs={"data-testid": "decline-change"},
            ),
            wrap="wrap",
            spacing="3",
            align="center",
            width="100%",
        ),
        rx.box(
            rx.text("Field", weight="medium", size="1", class_name="field"),
            rx.text("Old value", weight="medium", size="1"),
            rx.text("New value", weight="medium", size="1"),
            rx.foreach(
                row["changes"].to(list[dict[str, str]]),
                lambda c: rx.fragment(
                    rx.text(c["field"], class_name="field"),
                    rx.text(c["old"], class_name="old"),
                    rx.text(c["new"], class_name="new"),
                ),
            ),
            class_name="admin-change",
            margin_top="12px",
        ),
        class_name="admin-panel",
        custom_attrs={"data-testid": "change-request", "data-request-id": row["id"]},
    )


@staff_page("/admin/participants/changes", "Change requests", on_load=[C.load], permission=roles.CHANGE_REQUESTS)
def change_requests_page() -> rx.Component:
    return admin_layout(
        rx.vstack(
            rx.text(
                C.total,
                " pending change requests, oldest first. Declining puts the old values back.",
                size="2",
                color="var(--gray-11)",
            ),
            rx.cond(
                C.loaded & (C.total == 0),
                rx.callout("No change requests are waiting.", icon="check", id="no-change-requests"),
            ),
            rx.foreach(C.rows, _change_card),
            spacing="4",
            width="100%",
        ),
        actions=rx.link(rx.button("All participants", variant="soft", size="2"), href="/admin/participants"),
    )
