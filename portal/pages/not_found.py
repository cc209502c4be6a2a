"""/404 and every unknown path: public, no layout (the content is the page's main landmark)."""

from __future__ import annotations

import reflex as rx

from portal.components.layout import ready_marker
from portal.domain.messages import PAGE_NOT_FOUND


def not_found_page() -> rx.Component:
    return rx.el.main(
        ready_marker(),
        rx.center(
            rx.vstack(
                rx.heading("404", size="9", color="var(--accent-9)"),
                rx.text(PAGE_NOT_FOUND, size="4", id="not-found-text"),
                rx.link(rx.button("Back to home", size="3"), href="/", id="back-home"),
                align="center",
                spacing="4",
            ),
            min_height="100vh",
            padding="24px",
        ),
    )
