"""/sign-up: 'Sign up as participant', or 'Finish your registration' for a user with no work e-mail yet."""

from __future__ import annotations

import reflex as rx

from portal.components.layout import auth_layout
from portal.components.oidc import auth_error_callout, linkedin_button
from portal.states.auth import SessionState
from portal.states.oidc import LINKEDIN_CONFIGURED, OidcState, oauth_script


def sign_up_page() -> rx.Component:
    finish = rx.vstack(
        rx.heading("Finish your registration", size="6", as_="h1"),
        rx.text(
            "You are signed in as ",
            rx.text.strong(SessionState.email),
            ". A few more details and you can start taking paid tests.",
            color="var(--gray-11)",
        ),
        rx.link(rx.button("Finish registration", size="3", width="100%"), href="/sign-up/finish", width="100%"),
        rx.text("Need help? Contact support through the help center.", size="2", color="var(--gray-11)"),
        spacing="4",
        width="100%",
    )
    start = rx.vstack(
        rx.heading("Sign up as participant", size="6", as_="h1"),
        rx.text(
            "Professionals get paid to review B2B messaging: 10 to 15 minutes a test, 15 to 50 dollars.",
            color="var(--gray-11)",
        ),
        auth_error_callout(OidcState.auth_error),
        linkedin_button(
            "Sign Up with LinkedIn", oauth_script("linkedin", "{signUp: true}"), button_id="sign-up-with-linkedin"
        )
        if LINKEDIN_CONFIGURED
        else rx.text(
            "Sign-up is not available at the moment. Please try again later.", color="var(--gray-11)", size="2"
        ),
        rx.text("Already have an account? ", rx.link("Log in", href="/sign-in"), size="2"),
        spacing="4",
        width="100%",
    )
    return auth_layout(
        rx.card(
            rx.cond(SessionState.signed_in & ~SessionState.registration_complete, finish, start),
            size="4",
            width="100%",
        )
    )
