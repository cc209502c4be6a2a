"""/profile (MY PROFILE, screen 10): 'Become a participant - Have an impact, get paid.' The signed-in
person's own profile; staff look at participants at /admin/participants/{id}."""

from __future__ import annotations

import reflex as rx

from portal.components.layout import loading, main_layout
from portal.components.profile_form import profile_form
from portal.domain import profile_rules as rules
from portal.states.profile import ProfileState


def profile_page() -> rx.Component:
    return main_layout(
        rx.vstack(
            rx.heading(rules.TITLE, size="7", as_="h1", id="profile-title"),
            rx.text(rules.INTRO, color="var(--gray-11)"),
            spacing="1",
            margin_bottom="24px",
        ),
        rx.cond(
            ProfileState.loaded,
            rx.cond(
                ProfileState.load_error != "",
                rx.callout(ProfileState.load_error, color_scheme="red", icon="triangle-alert", id="profile-load-error"),
                profile_form(ProfileState),
            ),
            loading(),
        ),
    )
