"""/two-factor: the code step of a sign-in with two-factor sign-in on (auth layout)."""

from __future__ import annotations

import reflex as rx

from portal.components.form import form, form_error, submit_button, text_field
from portal.components.layout import auth_layout
from portal.domain import two_factor as rules
from portal.states.two_factor import TwoFactorChallengeState


def two_factor_page() -> rx.Component:
    return auth_layout(
        rx.card(
            rx.vstack(
                rx.heading(rules.CHALLENGE_TITLE, size="6", as_="h1", id="two-factor-challenge-title"),
                rx.text(rules.CHALLENGE_TEXT, size="2", color="var(--gray-11)"),
                rx.cond(
                    TwoFactorChallengeState.ready,
                    form(
                        text_field(
                            "Code",
                            id="two-factor-code",
                            name="code",
                            autocomplete="one-time-code",
                            error=TwoFactorChallengeState.code_error,
                            max_length=32,
                            auto_focus=True,
                        ),
                        form_error(TwoFactorChallengeState.global_error, id="two-factor-global-error"),
                        submit_button(
                            rules.CHALLENGE_BUTTON,
                            "Checking...",
                            submitting=TwoFactorChallengeState.submitting,
                            disabled=TwoFactorChallengeState.submitting,
                            button_id="two-factor-submit",
                        ),
                        id="two-factor-form",
                        on_submit=TwoFactorChallengeState.submit,
                    ),
                    rx.center(rx.spinner(size="3"), padding="32px", role="status", aria_label="Loading", width="100%"),
                ),
                rx.text(rules.CHALLENGE_RECOVERY, size="2", color="var(--gray-11)"),
                rx.text(rx.link("Back to sign in", href="/sign-in"), size="2"),
                spacing="4",
                width="100%",
            ),
            size="4",
            width="100%",
        )
    )
