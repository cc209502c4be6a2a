"""/notifications (issue 38): which e-mails a participant gets; each kind can be turned off and on."""

from __future__ import annotations

import reflex as rx
from reflex.vars import ObjectVar

from portal.components.layout import loading, main_layout
from portal.states.notifications import NotificationsState

TITLE = "Notifications"
INTRO = (
    "Choose which e-mails we send you. Every e-mail also has an unsubscribe link that turns its kind off "
    "without signing in."
)


def _row(item: ObjectVar[dict[str, str]]) -> rx.Component:
    return rx.hstack(
        rx.switch(
            checked=item["on"] == "1",
            on_change=lambda on: NotificationsState.toggle(item["kind"], on),
            disabled=item["optional"] == "",
            id="notification-" + item["kind"],
            aria_label=item["label"],
        ),
        rx.text(item["label"], as_="label", html_for="notification-" + item["kind"]),
        spacing="3",
        align="center",
    )


def notifications_page() -> rx.Component:
    return main_layout(
        rx.vstack(
            rx.heading(TITLE, size="7", as_="h1", id="notifications-title"),
            rx.text(INTRO, color="var(--gray-11)"),
            rx.cond(
                NotificationsState.loaded,
                rx.vstack(rx.foreach(NotificationsState.items, _row), spacing="3", id="notifications-list"),
                loading(),
            ),
            spacing="4",
            align="start",
        )
    )
