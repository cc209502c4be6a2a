"""The pieces of a conversation, for the participant's /messages and staff's /admin/messages (issue 38): the list
of threads, the messages of one, and the reply form."""

from __future__ import annotations

from typing import Any

import reflex as rx
from reflex.vars import ObjectVar

from portal.components.form.actions import form
from portal.components.form.inputs import textarea_field

MUTED = "var(--gray-11)"


def thread_row(row: ObjectVar[dict[str, str]], on_open: Any, *, selected: Any, with_participant: bool) -> rx.Component:
    unread = row["unread"] != "0"
    return rx.el.li(
        rx.el.button(
            rx.vstack(
                rx.hstack(
                    rx.text(
                        row["subject"], weight=rx.cond(unread, "bold", "medium"), size="2", class_name="thread-subject"
                    ),
                    rx.spacer(),
                    rx.cond(unread, rx.badge(row["unread"], " new", color_scheme="indigo", variant="solid")),
                    width="100%",
                    align="center",
                ),
                rx.text(
                    *((row["participant"], " · ") if with_participant else ()),
                    row["about"],
                    " · ",
                    row["when"],
                    size="1",
                    color=MUTED,
                ),
                rx.text(row["last"], size="1", color=MUTED, class_name="thread-last"),
                spacing="1",
                align="start",
                width="100%",
            ),
            on_click=on_open(row["id"]),
            class_name="thread-row",
            aria_current=rx.cond(selected == row["id"], "true", "false"),
            type="button",
        ),
        data_thread=row["id"],
    )


def thread_list(
    rows: Any, on_open: Any, *, selected: Any, list_id: str, empty: str, with_participant: bool = False
) -> rx.Component:
    return rx.cond(
        rows.length() > 0,
        rx.el.ul(
            rx.foreach(
                rows, lambda row: thread_row(row, on_open, selected=selected, with_participant=with_participant)
            ),
            class_name="thread-list",
            id=list_id,
        ),
        rx.text(empty, size="2", color=MUTED, id=f"{list_id}-empty"),
    )


def _message(item: ObjectVar[dict[str, str]]) -> rx.Component:
    mine = item["mine"] != ""
    return rx.box(
        rx.text(rx.text(item["who"], as_="span", weight="bold"), " · ", item["when"], size="1", color=MUTED),
        rx.text(item["body"], size="2", white_space="pre-wrap", class_name="message-body"),
        class_name=rx.cond(mine, "message message-mine", "message"),
        data_message=item["id"],
    )


def conversation(subject: Any, about: Any, messages: Any, *, on_reply: Any, reply_error: Any) -> rx.Component:
    return rx.vstack(
        rx.heading(subject, size="5", as_="h2", id="thread-subject"),
        rx.text("About: ", about, size="2", color=MUTED),
        rx.vstack(rx.foreach(messages, _message), spacing="3", width="100%", id="thread-messages"),
        form(
            textarea_field(
                "Reply",
                id="reply-body",
                name="body",
                rows="4",
                error=reply_error,
                max_length=5000,
            ),
            rx.hstack(rx.button("Send reply", type="submit", size="3", id="reply-send"), justify="end", width="100%"),
            on_submit=on_reply,
            id="reply-form",
        ),
        spacing="4",
        width="100%",
        align="start",
    )
