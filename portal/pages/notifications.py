"""/notifications (issue 38): which e-mails a participant gets (each kind can be turned off and on), and texts:
a mobile number confirmed with a code, then the kinds that come as a text too."""

from __future__ import annotations

import reflex as rx
from reflex.vars import ObjectVar

from portal.components.form.actions import form
from portal.components.form.inputs import text_field
from portal.components.layout import loading, main_layout
from portal.domain import sms as sms_rules
from portal.states.notifications import NotificationsState

TITLE = "Notifications"
INTRO = (
    "Choose which e-mails we send you. Every e-mail also has an unsubscribe link that turns its kind off "
    "without signing in."
)
TEXTS_TITLE = "Text messages"
TEXTS_INTRO = (
    "Never miss a test invite: get notifications to your phone too (not obligatory). Reply STOP to any text to "
    "stop them."
)
PHONE_HELPER = "With its country code, for example +1 415 555 0100."


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


def _text_row(item: ObjectVar[dict[str, str]]) -> rx.Component:
    switch_id = "text-" + item["kind"]
    return rx.hstack(
        rx.switch(
            checked=NotificationsState.sms_kinds.contains(item["kind"]),
            on_change=lambda on: NotificationsState.toggle_text(item["kind"], on),
            disabled=~NotificationsState.phone_confirmed,
            id=switch_id,
            aria_label="Text: " + item["label"],
        ),
        rx.text(item["label"], as_="label", html_for=switch_id),
        spacing="3",
        align="center",
    )


def _phone_form() -> rx.Component:
    return form(
        text_field(
            "Mobile number",
            id="sms-phone",
            name="phone",
            type="tel",
            autocomplete="tel",
            default_value=NotificationsState.phone,
            helper=PHONE_HELPER,
            error=NotificationsState.phone_error,
            max_length=32,
        ),
        rx.button(
            rx.cond(NotificationsState.sending, "Sending...", "Send code"),
            type="submit",
            size="3",
            loading=NotificationsState.sending,
            id="sms-send-code",
        ),
        on_submit=NotificationsState.send_code,
        id="sms-phone-form",
    )


def _code_form() -> rx.Component:
    return form(
        text_field(
            "Code from the text",
            id="sms-code",
            name="code",
            autocomplete="one-time-code",
            input_mode="numeric",
            max_length=12,
            error=NotificationsState.code_error,
        ),
        rx.button("Confirm", type="submit", size="3", id="sms-confirm"),
        on_submit=NotificationsState.confirm_code,
        id="sms-code-form",
    )


def _confirmed() -> rx.Component:
    return rx.hstack(
        rx.text("Texts go to ", rx.text(NotificationsState.phone, as_="span", weight="bold"), ".", id="sms-number"),
        rx.button("Remove number", variant="soft", color_scheme="gray", on_click=NotificationsState.remove_phone),
        spacing="3",
        align="center",
        wrap="wrap",
    )


def _texts() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.heading(TEXTS_TITLE, size="5", as_="h2"),
            rx.text(TEXTS_INTRO, color="var(--gray-11)"),
            rx.cond(
                NotificationsState.sms_available,
                rx.vstack(
                    rx.cond(
                        NotificationsState.phone_stopped,
                        rx.callout(sms_rules.STOPPED, icon="info", color_scheme="amber", id="sms-stopped"),
                    ),
                    rx.cond(
                        NotificationsState.phone_confirmed,
                        _confirmed(),
                        rx.vstack(
                            _phone_form(),
                            rx.cond(NotificationsState.code_pending, _code_form()),
                            spacing="4",
                            width="100%",
                            max_width="420px",
                        ),
                    ),
                    rx.heading("Send these as texts too", size="3", as_="h3"),
                    rx.vstack(rx.foreach(NotificationsState.items, _text_row), spacing="3", id="texts-list"),
                    spacing="4",
                    width="100%",
                ),
                rx.text(sms_rules.UNAVAILABLE, id="sms-unavailable"),
            ),
            spacing="4",
            align="start",
        ),
        width="100%",
        id="texts",
    )


def notifications_page() -> rx.Component:
    return main_layout(
        rx.vstack(
            rx.heading(TITLE, size="7", as_="h1", id="notifications-title"),
            rx.text(INTRO, color="var(--gray-11)"),
            rx.cond(
                NotificationsState.loaded,
                rx.vstack(
                    rx.card(
                        rx.vstack(
                            rx.heading("E-mails", size="5", as_="h2"),
                            rx.vstack(rx.foreach(NotificationsState.items, _row), spacing="3", id="notifications-list"),
                            spacing="4",
                        ),
                        width="100%",
                    ),
                    _texts(),
                    spacing="5",
                    width="100%",
                ),
                loading(),
            ),
            spacing="4",
            align="start",
        )
    )
