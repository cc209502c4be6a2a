"""/messages (issue 38): a participant's conversations with the research team."""

from __future__ import annotations

import reflex as rx

from portal.components.form.actions import form
from portal.components.form.inputs import select_field, text_field, textarea_field
from portal.components.layout import loading, main_layout
from portal.components.messages import conversation, thread_list
from portal.domain import inbox as rules
from portal.states.messages import MessagesState as M

TITLE = "Messages"
INTRO = "Write to the research team about a test or anything else. We reply here and by e-mail."


def _compose() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.heading("New message", size="5", as_="h2"),
            form(
                select_field(
                    "About",
                    id="new-about",
                    name="about",
                    options=M.about_options,
                    default_value="general",
                    native=True,
                    error=M.about_error,
                ),
                text_field(
                    "Subject", id="new-subject", name="subject", error=M.subject_error, max_length=rules.SUBJECT_MAX
                ),
                textarea_field(
                    "Message", id="new-body", name="body", rows="6", error=M.body_error, max_length=rules.BODY_MAX
                ),
                rx.hstack(
                    rx.button("Cancel", type="button", variant="soft", color_scheme="gray", on_click=M.cancel_compose),
                    rx.button("Send", type="submit", size="3", id="new-send"),
                    justify="end",
                    spacing="3",
                    width="100%",
                ),
                on_submit=M.send_new,
                id="new-message-form",
            ),
            spacing="4",
            width="100%",
        ),
        width="100%",
    )


def messages_page() -> rx.Component:
    return main_layout(
        rx.vstack(
            rx.hstack(
                rx.heading(TITLE, size="7", as_="h1", id="messages-title"),
                rx.spacer(),
                rx.button(rx.icon("pencil", size=16), "New message", on_click=M.compose, id="new-message"),
                width="100%",
                align="center",
                wrap="wrap",
            ),
            rx.text(INTRO, color="var(--gray-11)"),
            rx.cond(
                M.loaded,
                rx.box(
                    rx.card(
                        thread_list(
                            M.threads,
                            M.open,
                            selected=M.open_id,
                            list_id="threads",
                            empty="No messages yet.",
                        ),
                        class_name="messages-list",
                    ),
                    rx.box(
                        rx.cond(
                            M.composing,
                            _compose(),
                            rx.cond(
                                M.open_id != "",
                                rx.card(
                                    conversation(
                                        M.open_subject,
                                        M.open_about,
                                        M.open_messages,
                                        on_reply=M.reply,
                                        reply_error=M.reply_error,
                                    ),
                                    width="100%",
                                ),
                            ),
                        ),
                        class_name="messages-main",
                    ),
                    class_name="messages-layout",
                ),
                loading(),
            ),
            spacing="4",
            align="start",
            width="100%",
        )
    )
