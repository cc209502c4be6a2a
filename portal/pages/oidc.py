"""/existing-account, /linkedin-connect and /verify-account (/sign-up/finish is pages/onboarding.py)."""

from __future__ import annotations

import reflex as rx

from portal.components.layout import auth_layout, loading, main_layout
from portal.components.oidc import linkedin_button
from portal.domain.oidc import (
    CONNECT_TITLE,
    EXISTING_ACCOUNT_TITLE,
    LINKEDIN_ERROR_TITLE,
    LINKEDIN_EXISTS_TITLE,
    VERIFY_TITLE,
)
from portal.settings import settings
from portal.states.auth import SessionState
from portal.states.oidc import LINKEDIN_CONFIGURED, LinkedInConnectState, OidcState, VerifyAccountState, oauth_script

_MUTED = "var(--gray-11)"


def _card(*children: rx.Component) -> rx.Component:
    return auth_layout(rx.card(rx.vstack(*children, spacing="4", width="100%"), size="4", width="100%"))


def _support_link(text: str = "Contact support") -> rx.Component:
    return rx.link(text, href=settings.help_center_url, is_external=True, id="contact-support")


# ---- /existing-account ---------------------------------------------------------------------------


def _existing_found() -> rx.Component:
    return rx.vstack(
        rx.heading(EXISTING_ACCOUNT_TITLE, size="6", as_="h1", id="existing-account-title"),
        rx.text(
            "An account with the email address of your ",
            OidcState.existing_provider_label,
            " profile is already registered. ",
            OidcState.existing_provider_label,
            " will be connected to the account matching the ",
            OidcState.existing_provider_label,
            " email, and you can sign in with it from now on.",
            color=_MUTED,
        ),
        rx.cond(
            OidcState.existing_provider == "google",
            rx.button(
                "Connect Google",
                on_click=oauth_script("google", "{connectExisting: true}"),
                id="existing-connect",
                size="3",
                width="100%",
            ),
            linkedin_button(
                "Connect LinkedIn", oauth_script("linkedin", "{connectExisting: true}"), button_id="existing-connect"
            ),
        ),
        rx.text("Not your account? ", rx.link("Log in another way", href="/sign-in"), size="2"),
        spacing="4",
        width="100%",
    )


def _existing_error() -> rx.Component:
    return rx.vstack(
        rx.heading(LINKEDIN_ERROR_TITLE, size="6", as_="h1", id="existing-account-title"),
        rx.text("Something went wrong while connecting your LinkedIn account. Please try again.", color=_MUTED),
        rx.link(rx.button("Try again", size="3", width="100%", id="existing-try-again"), href="/sign-in", width="100%"),
        spacing="4",
        width="100%",
    )


def _existing_exists() -> rx.Component:
    return rx.vstack(
        rx.heading(LINKEDIN_EXISTS_TITLE, size="6", as_="h1", id="existing-account-title"),
        rx.text(
            "This LinkedIn account is already connected to another participant account. "
            "Continue with that LinkedIn account, or contact support to merge your accounts manually.",
            color=_MUTED,
        ),
        linkedin_button(
            "Continue with LinkedIn",
            oauth_script("linkedin", "{isSignIn: true}"),
            button_id="existing-continue-linkedin",
        ),
        rx.text("Want one account? ", _support_link("Contact support for a manual merge"), size="2"),
        spacing="4",
        width="100%",
    )


def existing_account_page() -> rx.Component:
    return _card(
        rx.match(
            OidcState.existing_variant,
            ("exists", _existing_exists()),
            ("error", _existing_error()),
            _existing_found(),
        )
    )


# ---- /linkedin-connect ---------------------------------------------------------------------------


def linkedin_connect_page() -> rx.Component:
    connect_flags = (
        "{connectExisting: true, "
        "signInFlow: new URLSearchParams(window.location.search).get('from_sign_in') === 'true'}"
    )
    return main_layout(
        rx.center(
            rx.card(
                rx.vstack(
                    rx.heading(CONNECT_TITLE, size="6", as_="h1", id="linkedin-connect-title"),
                    rx.text(
                        "Participants are moving to LinkedIn so we can verify their work history. "
                        "Connect your LinkedIn profile to keep getting invites to paid tests that match your "
                        "experience.",
                        color=_MUTED,
                    ),
                    linkedin_button(
                        "Connect LinkedIn", oauth_script("linkedin", connect_flags), button_id="linkedin-connect-button"
                    )
                    if LINKEDIN_CONFIGURED
                    else rx.fragment(),
                    rx.button(
                        "Skip for now",
                        on_click=LinkedInConnectState.skip,
                        variant="soft",
                        color_scheme="gray",
                        size="3",
                        width="100%",
                        id="linkedin-connect-skip",
                    ),
                    spacing="4",
                    width="100%",
                ),
                size="4",
                width="100%",
                max_width="480px",
            ),
        ),
    )


# ---- /verify-account -----------------------------------------------------------------------------


def _send_button() -> rx.Component:
    return rx.button(
        rx.match(
            VerifyAccountState.send_status,
            ("sending", "Sending..."),
            ("sent", "Email sent!"),
            "Send verification email",
        ),
        on_click=VerifyAccountState.send_email,
        disabled=VerifyAccountState.send_status != "idle",
        loading=VerifyAccountState.send_status == "sending",
        size="3",
        width="100%",
        id="verify-send",
    )


def verify_account_page() -> rx.Component:
    actions = rx.cond(
        SessionState.signed_in,
        rx.cond(
            SessionState.email_verified,
            rx.link(
                rx.button("Go to dashboard", size="3", width="100%", id="verify-dashboard"), href="/", width="100%"
            ),
            _send_button(),
        ),
        rx.vstack(
            rx.link(rx.button("Log in", size="3", width="100%", id="verify-log-in"), href="/sign-in", width="100%"),
            rx.text("New here? ", rx.link("Sign up", href="/sign-up"), size="2"),
            width="100%",
            spacing="3",
        ),
    )
    return _card(
        rx.heading(VERIFY_TITLE, size="6", as_="h1", id="verify-title"),
        rx.cond(
            OidcState.verify_reason != "",
            rx.text(OidcState.verify_reason, color=_MUTED, id="verify-reason"),
            rx.text("Please verify the email address of your account to continue.", color=_MUTED, id="verify-reason"),
        ),
        rx.cond(SessionState.loaded, actions, loading()),
        rx.text("Need help? ", _support_link(), size="2"),
    )
