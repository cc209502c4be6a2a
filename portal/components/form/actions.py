"""A form: its stacked fields, its message of no one field and its submit button."""

from __future__ import annotations

from typing import Any

import reflex as rx


def submit_button(
    label: str, busy_label: str, *, submitting: rx.Var[bool], button_id: str, disabled: Any = None
) -> rx.Component:
    """A form's full-width submit button: its busy label and spinner while the request runs."""
    return rx.button(
        rx.cond(submitting, busy_label, label),
        type="submit",
        size="3",
        width="100%",
        loading=submitting,
        disabled=disabled if disabled is not None else submitting,
        id=button_id,
    )


def form_error(message: rx.Var[str], *, id: str) -> rx.Component:
    """What is wrong with the form as a whole (or with no one field), above its buttons."""
    return rx.cond(
        message != "",
        rx.callout(message, icon="triangle-alert", color_scheme="red", role="alert", id=id, width="100%"),
    )


def form(*children: rx.Component, on_submit: Any, **props: Any) -> rx.Component:
    """A form of the portal: its fields, message and buttons stacked full width. Submitting keeps what was typed
    (the server answers with messages, never by clearing the form)."""
    return rx.form(
        rx.vstack(*children, spacing="4", width="100%"),
        on_submit=on_submit,
        reset_on_submit=False,
        width="100%",
        **props,
    )
