"""Labelled form fields with their error message, accessible by label and keyboard."""

from __future__ import annotations

import reflex as rx


def field_error(message: rx.Var[str], field_id: str) -> rx.Component:
    return rx.cond(
        message != "",
        rx.text(message, color="red", size="2", id=f"{field_id}-error", role="alert"),
    )


def text_field(
    label: str,
    *,
    field_id: str,
    name: str,
    error: rx.Var[str] | str = "",
    type: str = "text",
    placeholder: str = "",
    required: bool = False,
    autocomplete: str | None = None,
    **props,
) -> rx.Component:
    has_error = error != "" if isinstance(error, rx.Var) else bool(error)
    return rx.vstack(
        rx.el.label(
            label + (" *" if required else ""),
            html_for=field_id,
            style={"fontSize": "14px", "fontWeight": 500, "color": "var(--gray-12)"},
        ),
        rx.input(
            id=field_id,
            name=name,
            type=type,
            placeholder=placeholder,
            auto_complete=autocomplete,
            aria_invalid=rx.cond(has_error, "true", "false") if isinstance(has_error, rx.Var) else ("true" if has_error else "false"),
            aria_describedby=f"{field_id}-error",
            size="3",
            width="100%",
            color_scheme=rx.cond(has_error, "red", "indigo") if isinstance(has_error, rx.Var) else None,
            **props,
        ),
        field_error(error, field_id) if isinstance(error, rx.Var) else rx.fragment(),
        spacing="1",
        width="100%",
        align="stretch",
    )


def submit_button(label: str, busy_label: str, *, submitting: rx.Var[bool], button_id: str, disabled: rx.Var[bool] | None = None) -> rx.Component:
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
