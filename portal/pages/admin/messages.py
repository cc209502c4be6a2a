"""/admin/messages (issue 38): staff's inbox of threads with participants, a thread with its reply, and a new
message to one participant."""

from __future__ import annotations

import reflex as rx

from portal.components.admin import admin_layout
from portal.components.admin_pages import staff_page
from portal.components.form.actions import form
from portal.components.form.inputs import text_field, textarea_field
from portal.components.messages import conversation, thread_list
from portal.domain import inbox as rules
from portal.domain.staff import roles
from portal.states.admin.messages import AdminMessagesState as M

MUTED = "var(--gray-11)"


def _filters() -> rx.Component:
    return rx.hstack(
        rx.cond(
            M.participant_filter != "",
            rx.badge("Participant #", M.participant_filter, size="2", variant="soft", id="filter-participant"),
        ),
        rx.cond(M.test_filter != "", rx.badge("Test #", M.test_filter, size="2", variant="soft", id="filter-test")),
        rx.cond(
            (M.participant_filter != "") | (M.test_filter != ""),
            rx.link("All threads", href=rules.STAFF_PATH, size="2"),
        ),
        rx.spacer(),
        rx.text(M.unread, " unread", size="2", color=MUTED, id="staff-unread"),
        rx.hstack(
            rx.switch(checked=M.unread_only, on_change=M.show_unread, id="unread-only", aria_label="Unread only"),
            rx.text("Unread only", as_="label", html_for="unread-only", size="2"),
            spacing="2",
            align="center",
        ),
        width="100%",
        align="center",
        wrap="wrap",
        spacing="3",
    )


def _new_message() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.heading("New message to ", M.to_name, size="5", as_="h2", id="new-to"),
            rx.cond(M.to_review != "", rx.text("About their review #", M.to_review, size="2", color=MUTED)),
            form(
                text_field(
                    "Subject", id="staff-subject", name="subject", error=M.subject_error, max_length=rules.SUBJECT_MAX
                ),
                textarea_field(
                    "Message", id="staff-body", name="body", rows="6", error=M.body_error, max_length=rules.BODY_MAX
                ),
                rx.hstack(
                    rx.button("Cancel", type="button", variant="soft", color_scheme="gray", on_click=M.cancel_new),
                    rx.button("Send", type="submit", size="3", id="staff-send"),
                    justify="end",
                    spacing="3",
                    width="100%",
                ),
                on_submit=M.send_new,
                id="staff-new-form",
            ),
            spacing="4",
            width="100%",
        ),
        width="100%",
    )


@staff_page(rules.STAFF_PATH, "Messages", on_load=[M.load_page], permission=roles.MESSAGE, menu="Messages")
def messages_page() -> rx.Component:
    return admin_layout(
        rx.vstack(
            _filters(),
            rx.box(
                rx.card(
                    thread_list(
                        M.threads,
                        M.open,
                        selected=M.open_id,
                        list_id="staff-threads",
                        empty="No messages here yet.",
                        with_participant=True,
                    ),
                    class_name="messages-list",
                ),
                rx.box(
                    rx.cond(
                        M.to_id != "",
                        _new_message(),
                        rx.cond(
                            M.open_id != "",
                            rx.card(
                                rx.vstack(
                                    rx.hstack(
                                        rx.text("With ", M.open_participant, size="2", color=MUTED),
                                        rx.link(
                                            "Profile",
                                            href="/admin/participants/" + M.open_participant_id,
                                            size="2",
                                        ),
                                        rx.link(
                                            "All their threads",
                                            href=rules.STAFF_PATH + "?participant=" + M.open_participant_id,
                                            size="2",
                                        ),
                                        spacing="3",
                                        wrap="wrap",
                                    ),
                                    conversation(
                                        M.open_subject,
                                        M.open_about,
                                        M.open_messages,
                                        on_reply=M.reply,
                                        reply_error=M.reply_error,
                                    ),
                                    spacing="3",
                                    width="100%",
                                ),
                                width="100%",
                            ),
                        ),
                    ),
                    class_name="messages-main",
                ),
                class_name="messages-layout",
            ),
            spacing="4",
            width="100%",
        ),
    )
