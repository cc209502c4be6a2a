"""What every field of the form kit shares: its label (with the required or optional mark), its helper text,
its error message, the ARIA that ties them to the control, and the box that holds them in that order.

Ids follow the field's id: the control is `id`, its helper `id-helper`, its error `id-error` (an id may be a
state Var, e.g. inside `rx.foreach`).
"""

from __future__ import annotations

from typing import Any, Literal

import reflex as rx
from reflex.vars import ArrayVar, StringVar

# A text the page fixes, or one the state holds.
Text = str | rx.Var
Id = str | StringVar
# A select's or a group's options: (value, text) pairs, or a Var of rows that `item` turns into pairs.
Options = list[tuple[str, str]] | ArrayVar[Any]


def pair(row: ArrayVar[Any]) -> tuple[rx.Var, rx.Var]:
    """A row [value, text] of a Var of options (the default `item`)."""
    return row[0], row[1]


def suffixed(field_id: Id, suffix: str) -> Id:
    return field_id + suffix


def shown(message: Text) -> rx.Var | bool:
    """Whether an error or helper has something to say: decided in the browser for a Var."""
    return message != "" if isinstance(message, rx.Var) else bool(message)


def field_label(
    text: Text,
    *,
    html_for: Id | None = None,
    required: bool = False,
    optional: bool = False,
    label_id: Id | None = None,
    tag: Literal["label", "legend", "div"] = "label",
) -> rx.Component:
    """The label: 'Text *' for a required field (the mark is part of its name, as the spec writes it),
    'Text (optional)' for an optional one. A `legend` names a fieldset, a `div` a group named by its id."""
    marks: list[Any] = []
    if required:
        marks = [" ", rx.el.span("*", class_name="portal-required")]
    elif optional:
        marks = [rx.el.span(" (optional)", class_name="portal-optional")]
    props: dict[str, Any] = {"class_name": "portal-label"}
    if label_id is not None:
        props["id"] = label_id
    if tag == "legend":
        return rx.el.legend(text, *marks, **props)
    if tag == "div":
        return rx.el.div(text, *marks, **props)
    return rx.el.label(text, *marks, html_for=html_for, **props)


def field_helper(text: Text, field_id: Id) -> rx.Component:
    """The helper under the control. A helper the state changes (a check under way) is announced."""
    live = {"aria_live": "polite"} if isinstance(text, rx.Var) else {}
    return rx.text(text, size="1", class_name="portal-helper", id=suffixed(field_id, "-helper"), **live)


def field_error(message: Text, field_id: Id, *, always: bool = False) -> rx.Component:
    """The field's message, shown while it is not empty (`always`: its element stays, empty, for a script
    or a test that writes or reads it)."""
    text = rx.text(
        message, size="2", color_scheme="red", class_name="portal-error", id=suffixed(field_id, "-error"), role="alert"
    )
    if always:
        return text
    if isinstance(message, rx.Var):
        return rx.cond(message != "", text)
    return text if message else rx.fragment()


def control_aria(
    field_id: Id, *, error: Text | None = None, helper: Text | None = None, required: bool = False
) -> dict[str, Any]:
    """aria-invalid while the error shows, aria-describedby naming the error (while it shows) and the
    helper, aria-required on a required field (no browser bubble: the server's message says what is wrong)."""
    aria: dict[str, Any] = {}
    helper_id = suffixed(field_id, "-helper") if helper is not None else None
    error_id = suffixed(field_id, "-error")
    if error is not None:
        is_shown = shown(error)
        both = error_id + " " + helper_id if helper_id is not None else error_id
        if isinstance(is_shown, rx.Var):
            aria["aria_invalid"] = rx.cond(is_shown, "true", "false")
            aria["aria_describedby"] = rx.cond(is_shown, both, helper_id if helper_id is not None else "")
        else:
            aria["aria_invalid"] = "true" if is_shown else "false"
            aria["aria_describedby"] = both if is_shown else helper_id
    elif helper_id is not None:
        aria["aria_describedby"] = helper_id
    if required:
        aria["aria_required"] = "true"
    return {key: value for key, value in aria.items() if value is not None}


def error_color(error: Text | None) -> dict[str, Any]:
    """A Radix control turns red while its error shows."""
    if error is None:
        return {}
    is_shown = shown(error)
    if isinstance(is_shown, rx.Var):
        return {"color_scheme": rx.cond(is_shown, "red", "indigo")}
    return {"color_scheme": "red"} if is_shown else {}


def field(
    control: rx.Component,
    *,
    label: Text | None,
    field_id: Id,
    error: Text | None = None,
    helper: Text | None = None,
    required: bool = False,
    optional: bool = False,
    label_target: Id | None = None,
    label_tag: Literal["label", "div"] = "label",
    label_id: Id | None = None,
    after: rx.Component | None = None,
    class_name: str | None = None,
    style: Any = None,
) -> rx.Component:
    """One field: label, control, helper, error, then `after` (e.g. the value before a staff change).
    The label names the control `field_id` (or `label_target`, e.g. a multi-select's search box); a `div`
    label names a group through `label_id`. `class_name` and `style` go to the box (a form may mark a
    changed field)."""
    parts: list[rx.Component] = []
    if label is not None:
        target = label_target if label_target is not None else field_id
        parts.append(
            field_label(
                label,
                html_for=target if label_tag == "label" else None,
                required=required,
                optional=optional,
                label_id=label_id,
                tag=label_tag,
            )
        )
    parts.append(control)
    if helper is not None:
        parts.append(field_helper(helper, field_id))
    if error is not None:
        parts.append(field_error(error, field_id))
    if after is not None:
        parts.append(after)
    box: dict[str, Any] = {"class_name": "portal-field" + (f" {class_name}" if class_name else "")}
    if style is not None:
        box["style"] = style
    return rx.el.div(*parts, **box)
