"""/sign-in: 'Log in as participant' with the e-mail form for older accounts."""

from __future__ import annotations

import reflex as rx

from portal.components.form import form, form_error, submit_button, text_field
from portal.components.icons import icon_switch
from portal.components.layout import auth_layout
from portal.components.oidc import no_account_found_heading, sign_in_providers
from portal.states.sign_in import SignInState, sign_in_title


def _last_used_badge(method: str) -> rx.Component:
    return rx.cond(SignInState.last_login_method == method, rx.badge("Last used", color_scheme="green", variant="soft"))


def email_form() -> rx.Component:
    return form(
        text_field(
            "Email Address",
            id="sign-in-email",
            name="email",
            type="email",
            error=SignInState.email_error,
            autocomplete="username",
            placeholder="you@company.com",
        ),
        text_field(
            "Password",
            id="sign-in-password",
            name="password",
            type="password",
            error=SignInState.password_error,
            autocomplete="current-password",
        ),
        form_error(SignInState.global_error, id="sign-in-global-error"),
        submit_button("Sign In", "Signing in...", submitting=SignInState.submitting, button_id="sign-in-submit"),
        rx.link("Forgot password?", href="/site-decider", size="2", align="center", width="100%"),
        id="sign-in-form",
        on_submit=SignInState.submit,
    )


def sign_in_page() -> rx.Component:
    return auth_layout(
        rx.card(
            rx.vstack(
                no_account_found_heading(rx.heading(sign_in_title(), size="6", as_="h1", id="sign-in-title")),
                rx.text("Review B2B messaging, have an impact and get paid.", color="var(--gray-11)", size="2"),
                *sign_in_providers(_last_used_badge),
                rx.button(
                    rx.hstack(
                        rx.text("Sign in with email (older accounts only)"),
                        _last_used_badge("email"),
                        icon_switch(SignInState.email_form_open, "chevron-up", "chevron-down", size=16),
                        align="center",
                        spacing="2",
                    ),
                    variant="ghost",
                    on_click=SignInState.toggle_email_form,
                    aria_expanded=rx.cond(SignInState.email_form_open, "true", "false"),
                    aria_controls="sign-in-form",
                    id="toggle-email-form",
                    width="100%",
                ),
                rx.cond(SignInState.email_form_open, email_form()),
                rx.divider(),
                rx.text(
                    "New here? ",
                    rx.link("Register", href="/sign-up", id="register-link"),
                    size="2",
                ),
                spacing="4",
                width="100%",
            ),
            size="4",
            width="100%",
        )
    )
