"""The LinkedIn and Google buttons, and the message a refused provider flow comes back with."""

from __future__ import annotations

import reflex as rx

from portal.domain.oidc import NO_ACCOUNT_FOUND
from portal.states.oidc import GOOGLE_CONFIGURED, LINKEDIN_CONFIGURED, OidcState, oauth_script


def _mark(src: str) -> rx.Component:
    return rx.image(src=src, alt="", width="18px", height="18px", aria_hidden="true")


_PROVIDER_LOOK = {
    "linkedin": {"class_name": "portal-linkedin-button"},
    "google": {"class_name": "portal-google-button", "variant": "outline", "color_scheme": "gray"},
}


def provider_button(
    provider: str, label: str, on_click, *, button_id: str, badge: rx.Component | None = None, **props
) -> rx.Component:
    """A full-width 'LinkedIn' or 'Google' button with the provider's mark and an optional badge."""
    return rx.button(
        _mark(f"/oidc/{provider}.svg"),
        rx.text(label),
        badge if badge is not None else rx.fragment(),
        on_click=on_click,
        id=button_id,
        size="3",
        width="100%",
        **_PROVIDER_LOOK[provider],
        **props,
    )


def linkedin_button(
    label: str, on_click, *, button_id: str, badge: rx.Component | None = None, **props
) -> rx.Component:
    return provider_button("linkedin", label, on_click, button_id=button_id, badge=badge, **props)


def auth_error_callout(message: rx.Var[str]) -> rx.Component:
    return rx.cond(
        message != "",
        rx.callout(message, icon="triangle-alert", color_scheme="red", role="alert", id="auth-error", width="100%"),
    )


def sign_in_providers(badge_for) -> list[rx.Component]:
    """The sign-in screen's part: the 'No account found' variant, a refused flow's message,
    'Continue with LinkedIn' and 'Sign In with Google' with their 'Last used' badges."""

    parts: list[rx.Component] = [auth_error_callout(OidcState.auth_error)]
    if LINKEDIN_CONFIGURED:
        parts.append(
            rx.cond(
                OidcState.no_account_found,
                rx.vstack(
                    rx.text(
                        "There is no account connected to this LinkedIn profile yet. "
                        "Sign up with LinkedIn to create one, or log in another way below.",
                        id="no-account-found-text",
                    ),
                    linkedin_button(
                        "Sign Up with LinkedIn",
                        oauth_script("linkedin", "{signUp: true}"),
                        button_id="no-account-sign-up",
                    ),
                    rx.divider(),
                    spacing="3",
                    width="100%",
                ),
            )
        )
        parts.append(
            linkedin_button(
                "Continue with LinkedIn",
                oauth_script("linkedin", "{isSignIn: true}"),
                button_id="continue-with-linkedin",
                badge=badge_for("linkedin"),
            )
        )
    if GOOGLE_CONFIGURED:
        parts.append(
            provider_button(
                "google",
                "Sign In with Google",
                oauth_script("google", "{isSignIn: true}"),
                button_id="sign-in-with-google",
                badge=badge_for("google"),
            )
        )
    return parts


def no_account_found_heading(default: rx.Component) -> rx.Component:
    """'No account found' in place of the sign-in title when the query says the LinkedIn account does not exist."""

    return rx.cond(
        OidcState.no_account_found, rx.heading(NO_ACCOUNT_FOUND, size="6", as_="h1", id="no-account-title"), default
    )
