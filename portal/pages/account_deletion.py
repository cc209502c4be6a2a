"""/account/delete: confirm 'Delete my account' from the e-mailed link (auth layout)."""

from __future__ import annotations

import reflex as rx

from portal.components.layout import auth_layout
from portal.domain import account_deletion as rules
from portal.states.account_deletion import DeleteAccountState


def delete_account_page() -> rx.Component:
    ready = rx.vstack(
        rx.text(rules.TEXT, size="2", color="var(--gray-11)"),
        rx.button(
            rules.CONFIRM_BUTTON,
            color_scheme="red",
            size="3",
            width="100%",
            loading=DeleteAccountState.deleting,
            on_click=DeleteAccountState.confirm,
            id="delete-account-confirm",
        ),
        rx.text(rx.link("Keep my account", href="/account"), size="2"),
        spacing="4",
        width="100%",
    )
    dead = rx.vstack(
        rx.callout(rules.LINK_DEAD, icon="info", color_scheme="amber", id="delete-account-dead"),
        rx.text(rx.link("Back to the portal", href="/"), size="2"),
        spacing="4",
        width="100%",
    )
    return auth_layout(
        rx.card(
            rx.vstack(
                rx.heading(rules.CONFIRM_TITLE, size="6", as_="h1", id="delete-account-title"),
                rx.cond(
                    DeleteAccountState.checked,
                    rx.cond(DeleteAccountState.usable, ready, dead),
                    rx.center(rx.spinner(size="3"), padding="32px", role="status", aria_label="Loading", width="100%"),
                ),
                spacing="4",
                width="100%",
            ),
            size="4",
            width="100%",
        )
    )
