"""The demo opt-in modal 'New way to engage: live meetings.' (screen 15)."""

from __future__ import annotations

import reflex as rx

from portal.domain import demo_opt_in as rules
from portal.states.demo import DemoOptInState


def demo_opt_in_modal() -> rx.Component:
    return rx.dialog.root(
        rx.dialog.content(
            rx.flex(
                rx.dialog.title(rules.TITLE, margin="0", id="demo-opt-in-title"),
                rx.dialog.close(
                    rx.icon_button(
                        rx.icon("x", size=16),
                        variant="ghost",
                        color_scheme="gray",
                        aria_label="Close",
                        id="demo-opt-in-close",
                    ),
                ),
                justify="between",
                align="start",
                gap="12px",
            ),
            rx.dialog.description(rules.BODY, margin_top="8px"),
            rx.flex(
                rx.button(
                    rules.NO,
                    variant="soft",
                    color_scheme="gray",
                    on_click=DemoOptInState.answer(False),
                    disabled=DemoOptInState.saving,
                    id="demo-opt-in-no",
                ),
                rx.button(
                    rules.YES, on_click=DemoOptInState.answer(True), loading=DemoOptInState.saving, id="demo-opt-in-yes"
                ),
                justify="end",
                gap="12px",
                margin_top="20px",
                wrap="wrap",
            ),
            max_width="460px",
            id="demo-opt-in",
        ),
        open=DemoOptInState.open,
        on_open_change=DemoOptInState.set_open,
    )
