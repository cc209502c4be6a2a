"""The admin shell: staff navigation, the not-found page for anyone else, and small shared pieces."""

from __future__ import annotations

from typing import Any

import reflex as rx

from portal.components import admin_pages
from portal.components.layout import footer, logo, ready_marker, user_menu
from portal.domain.staff import roles
from portal.pages.not_found import not_found_page
from portal.states.admin.guard import StaffState
from portal.states.auth import current_path


def _nav() -> rx.Component:
    """The admin menu: every declared staff page with a menu entry, shown to the roles that may open it."""
    links = []
    for page in admin_pages.menu_entries():
        href = page.route
        active: rx.Var[bool] = current_path().startswith(page.route)
        for alias in page.also_at:
            active = active | (current_path() == alias)
        link = rx.el.a(
            page.menu,
            href=href,
            class_name="admin-nav-link",
            data_active=rx.cond(active, "true", "false"),
            aria_current=rx.cond(active, "page", None),
        )
        links.append(rx.cond(StaffState.can[page.permission], link) if page.permission != roles.VIEW else link)
    return rx.el.nav(*links, class_name="admin-nav", aria_label="Admin")


def _header() -> rx.Component:
    return rx.el.header(
        ready_marker(),
        rx.box(
            logo(),
            rx.badge(
                "Staff · ",
                StaffState.role_label,
                color_scheme="amber",
                variant="soft",
                high_contrast=True,
                id="admin-role",
            ),
            rx.spacer(),
            rx.link("Participant view", href="/", size="2", class_name="portal-desktop-only"),
            user_menu(),
            class_name="portal-header-inner",
        ),
        rx.box(_nav(), class_name="admin-nav-row"),
        class_name="portal-header",
    )


def admin_layout(*children: rx.Component, actions: rx.Component | None = None, title: Any = None) -> rx.Component:
    """Staff see the page; everyone else the not-found page. The title and the permission are the page's
    declaration's (components/admin_pages.py); `title` may name what the page shows instead (a Var)."""
    declared = admin_pages.building()
    permission = declared.permission
    title = declared.title if title is None else title
    body = rx.box(
        rx.hstack(
            rx.heading(title, size="6", as_="h1"),
            rx.spacer(),
            actions or rx.fragment(),
            align="center",
            wrap="wrap",
            spacing="3",
            width="100%",
        ),
        rx.cond(
            StaffState.can[permission],
            rx.box(*children, width="100%"),
            rx.callout(
                "Your role does not include this page.", icon="lock", color_scheme="gray", id="admin-no-permission"
            ),
        ),
        class_name="portal-main admin-main",
    )
    page = rx.box(_header(), rx.el.main(body, style={"flex": "1"}), footer(), class_name="portal-page admin-page")
    return rx.cond(
        StaffState.checked,
        rx.cond(StaffState.allowed, page, not_found_page()),
        rx.center(rx.spinner(size="3"), min_height="100vh", aria_label="Loading"),
    )


def confirm_dialog(
    open_: Any,
    title: Any,
    body: Any,
    confirm_label: Any,
    on_confirm: Any,
    on_cancel: Any,
    dialog_id: str,
    color: str = "indigo",
    dismiss_label: str = "Cancel",
) -> rx.Component:
    return rx.alert_dialog.root(
        rx.alert_dialog.content(
            # The ids go on the texts: Radix names the dialog by the title's and description's own ids.
            rx.alert_dialog.title(rx.el.span(title, id=f"{dialog_id}-title")),
            rx.alert_dialog.description(rx.el.span(body, id=f"{dialog_id}-body"), size="2"),
            rx.hstack(
                rx.alert_dialog.cancel(
                    rx.button(
                        dismiss_label,
                        variant="soft",
                        color_scheme="gray",
                        on_click=on_cancel,
                        id=f"{dialog_id}-dismiss",
                    )
                ),
                rx.alert_dialog.action(
                    rx.button(confirm_label, color_scheme=color, on_click=on_confirm, id=f"{dialog_id}-confirm")
                ),
                justify="end",
                spacing="3",
                margin_top="16px",
            ),
            id=dialog_id,
        ),
        open=open_,
    )


def status_badge(text: Any) -> rx.Component:
    color = rx.match(
        text,
        ("Verified", "green"),
        ("Approved", "green"),
        ("Paid", "green"),
        ("Payable", "blue"),
        ("Active", "green"),
        ("running", "green"),
        ("Running", "green"),
        ("Rejected", "red"),
        ("Failed", "red"),
        ("Deactivated", "red"),
        ("Canceled", "gray"),
        ("Submitted", "amber"),
        ("Pending", "amber"),
        "gray",
    )
    return rx.badge(text, color_scheme=color, variant="soft", high_contrast=True)
