"""/demo (screen 15's demo route, with its demoProductOptInStatus parameter): live demo meetings."""

from __future__ import annotations

import reflex as rx

from portal.components.layout import loading, main_layout
from portal.domain import demo_opt_in as rules
from portal.states.demo import DemoOptInState


def demo_page() -> rx.Component:
    return main_layout(
        rx.vstack(
            rx.heading(rules.PAGE_TITLE, size="7", as_="h1", id="demo-title"),
            rx.text(rules.BODY.rsplit(" Would", 1)[0], color="var(--gray-11)"),
            rx.cond(
                DemoOptInState.status == "",
                loading(),
                rx.callout(
                    rx.cond(DemoOptInState.status == "in", rules.PAGE_IN, rules.PAGE_OUT),
                    icon="calendar-check",
                    color_scheme=rx.cond(DemoOptInState.status == "in", "green", "gray"),
                    id="demo-status",
                ),
            ),
            rx.link(rx.button("Back", variant="soft"), href=DemoOptInState.back_href, id="demo-back"),
            spacing="4",
            align="start",
        )
    )
