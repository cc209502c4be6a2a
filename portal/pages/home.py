"""/ (TESTS): private page in the main layout, with the demo opt-in modal (/profile: pages/profile.py)."""

from __future__ import annotations

import reflex as rx

from portal.components.banners import awaiting_verification_banner
from portal.components.demo_opt_in import demo_opt_in_modal
from portal.components.home_tables import home_tables
from portal.components.layout import main_layout
from portal.states.auth import SessionState


def _page_heading(title: str, subtitle: str) -> rx.Component:
    return rx.vstack(
        rx.heading(title, size="7", as_="h1"),
        rx.text(subtitle, color="var(--gray-11)"),
        spacing="1",
        margin_bottom="24px",
    )


def home_page() -> rx.Component:
    return main_layout(
        _page_heading("Tests", "Your invites to paid tests and the rewards you have earned."),
        rx.text(
            "Welcome back, ",
            rx.text.strong(SessionState.first_name, id="welcome-name"),
            ". New invites arrive by e-mail; each invite is open for 24 hours.",
            color="var(--gray-11)",
            size="2",
            margin_bottom="16px",
        ),
        awaiting_verification_banner(),
        home_tables(),
        demo_opt_in_modal(),
    )
