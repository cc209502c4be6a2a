"""Password recovery screens: /site-decider, /forgot and /reset (auth layout)."""

from __future__ import annotations

import reflex as rx
from reflex.vars import ObjectVar

from portal.components.form import form, form_error, submit_button, text_field
from portal.components.layout import auth_layout
from portal.domain import password_policy as policy
from portal.domain import password_reset as rules
from portal.settings import settings
from portal.states.password_reset import ForgotPasswordState, ResetPasswordState

PASSWORD_ID = "reset-password"
CONFIRM_ID = "reset-confirm-password"
# The checklist waits this long after the last keystroke before asking the server.
CHECKLIST_DEBOUNCE_MS = 250


def _card(*children: rx.Component) -> rx.Component:
    return auth_layout(rx.card(rx.vstack(*children, spacing="4", width="100%"), size="4", width="100%"))


# --- /site-decider ------------------------------------------------------------------------


def _decider_option(question: str, text: str, button: rx.Component) -> rx.Component:
    return rx.vstack(
        rx.heading(question, size="4", as_="h2"),
        rx.text(text, size="2", color="var(--gray-11)"),
        button,
        spacing="2",
        width="100%",
    )


def site_decider_page() -> rx.Component:
    return _card(
        rx.heading("Recover your password", size="6", as_="h1", id="site-decider-title"),
        _decider_option(
            "Signing in as a participant?",
            "You take paid tests and review B2B messaging.",
            rx.button(
                rx.el.a("Recover participant password", href=rules.FORGOT_PATH, id="recover-participant"),
                as_child=True,
                size="3",
                width="100%",
            ),
        ),
        rx.divider(),
        _decider_option(
            "Signing in as a customer?",
            "You run tests for your business on the customer web app.",
            rx.button(
                rx.el.a(
                    "Recover customer password",
                    href=f"{settings.customer_site_url.rstrip('/')}{rules.FORGOT_PATH}",
                    id="recover-customer",
                ),
                as_child=True,
                size="3",
                width="100%",
                variant="outline",
            ),
        ),
        rx.text("Remembered it? ", rx.link("Back to sign in", href="/sign-in"), size="2"),
    )


# --- /forgot ------------------------------------------------------------------------------


def _forgot_form() -> rx.Component:
    return form(
        text_field(
            "Email Address",
            id="forgot-email",
            name="email",
            type="email",
            error=ForgotPasswordState.email_error,
            autocomplete="email",
            placeholder="you@company.com",
            on_change=ForgotPasswordState.email_changed.debounce(150),
        ),
        form_error(ForgotPasswordState.global_error, id="forgot-global-error"),
        submit_button(
            rules.SEND_BUTTON,
            "Sending...",
            submitting=ForgotPasswordState.submitting,
            disabled=ForgotPasswordState.submitting | ~ForgotPasswordState.email_filled,
            button_id="forgot-submit",
        ),
        id="forgot-form",
        on_submit=ForgotPasswordState.submit,
    )


def forgot_page() -> rx.Component:
    body = rx.vstack(
        rx.heading(rules.FORGOT_TITLE, size="6", as_="h1", id="forgot-title"),
        rx.text(rules.FORGOT_PROMPT, color="var(--gray-11)", size="2"),
        _forgot_form(),
        spacing="4",
        width="100%",
    )
    sent = rx.vstack(
        rx.center(rx.icon("mail-check", size=40, color="var(--accent-9)"), width="100%"),
        rx.heading(rules.SENT_TITLE, size="6", as_="h1", id="forgot-sent-title", align="center", width="100%"),
        rx.text(ForgotPasswordState.sent_text, color="var(--gray-11)", size="2", id="forgot-sent-text", align="center"),
        rx.text(
            "Did not get it? Check your spam folder, or ",
            rx.link(
                "try again",
                href=rules.FORGOT_PATH,
                id="forgot-again",
                on_click=ForgotPasswordState.load.prevent_default,
            ),
            ".",
            size="2",
            align="center",
            width="100%",
        ),
        spacing="4",
        width="100%",
        role="status",
    )
    return _card(
        rx.cond(ForgotPasswordState.sent, sent, body),
        rx.divider(),
        rx.text(rx.link("Back to sign in", href="/sign-in"), size="2"),
    )


# --- /reset -------------------------------------------------------------------------------


def _value_of(element_id: str) -> rx.Var:
    return rx.Var(_js_expr=f"(document.getElementById({element_id!r})?.value ?? '')", _var_type=str)


def _evaluate(field: str):
    """Both values, read when the debounced event fires, go to the policy on the server."""
    return lambda _value: ResetPasswordState.evaluate(field, _value_of(PASSWORD_ID), _value_of(CONFIRM_ID)).debounce(
        CHECKLIST_DEBOUNCE_MS
    )


def _requirement(item: ObjectVar[dict[str, str]]) -> rx.Component:
    icon = rx.match(
        item["status"],
        ("met", rx.icon("circle-check", size=16, color="var(--grass-10)")),
        ("waived", rx.icon("circle-minus", size=16, color="var(--gray-9)")),
        rx.icon("circle", size=16, color="var(--gray-8)"),
    )
    state_text = rx.match(item["status"], ("met", "met"), ("waived", "not needed"), "not met")
    return rx.el.li(
        rx.hstack(
            rx.box(icon, aria_hidden="true", display="flex", padding_top="2px"),
            rx.text(
                item["label"],
                size="2",
                color=rx.match(
                    item["status"], ("met", "var(--gray-12)"), ("waived", "var(--gray-10)"), "var(--gray-11)"
                ),
            ),
            spacing="2",
            align="start",
        ),
        aria_label=item["label"].to(str) + ": " + state_text.to(str),
        data_key=item["key"],
        data_status=item["status"],
        class_name="portal-requirement",
        style={"listStyle": "none"},
    )


def _checklist() -> rx.Component:
    return password_checklist(ResetPasswordState.requirements)


def password_checklist(requirements: rx.Var) -> rx.Component:
    """The spec's password requirements, each met or not as the person types (the reset and the change forms)."""
    return rx.box(
        rx.text("Your password needs:", size="2", weight="medium", id="requirements-title"),
        rx.el.ul(
            rx.foreach(requirements, _requirement),
            id="password-requirements",
            aria_labelledby="requirements-title",
            aria_live="polite",
            style={"margin": "8px 0 0", "padding": 0, "display": "flex", "flexDirection": "column", "gap": "6px"},
        ),
        width="100%",
        padding="12px",
        border_radius="var(--radius-3)",
        background="var(--gray-2)",
        border="1px solid var(--gray-4)",
    )


def _reset_form() -> rx.Component:
    return form(
        text_field(
            "New Password",
            id=PASSWORD_ID,
            name="password",
            type="password",
            error=ResetPasswordState.password_feedback,
            autocomplete="new-password",
            placeholder=f"{policy.MIN_LENGTH}+ characters",
            on_change=_evaluate(policy.PASSWORD_FIELD),
            on_blur=ResetPasswordState.touch(policy.PASSWORD_FIELD),
            data_error_code=ResetPasswordState.password_error_code,
        ),
        _checklist(),
        text_field(
            "Confirm New Password",
            id=CONFIRM_ID,
            name="confirmPassword",
            type="password",
            error=ResetPasswordState.confirm_feedback,
            autocomplete="new-password",
            on_change=_evaluate(policy.CONFIRM_FIELD),
            on_blur=ResetPasswordState.touch(policy.CONFIRM_FIELD),
        ),
        form_error(ResetPasswordState.global_error, id="reset-global-error"),
        submit_button(
            rules.CHANGE_BUTTON,
            "Changing...",
            submitting=ResetPasswordState.submitting,
            disabled=ResetPasswordState.submitting | ~ResetPasswordState.ready,
            button_id="reset-submit",
        ),
        id="reset-form",
        on_submit=ResetPasswordState.submit,
    )


def reset_page() -> rx.Component:
    return _card(
        rx.heading(rules.CREATE_TITLE, size="6", as_="h1", id="reset-title"),
        rx.cond(
            ResetPasswordState.checked,
            _reset_form(),
            rx.center(rx.spinner(size="3"), padding="32px", role="status", aria_label="Loading", width="100%"),
        ),
    )
