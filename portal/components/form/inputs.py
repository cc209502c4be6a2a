"""Text inputs, text areas and selects of the form kit.

The value and the events come in as arguments:
- `value=` with `on_change=` and `debounce=` (ms): a controlled field that sends one event when typing
  pauses, never one per key;
- `default_value=` with `on_blur=` (and an `on_change=` the caller has debounced itself): an uncontrolled
  field whose value is sent when it is left, or with its form (`name=`).
"""

from __future__ import annotations

from typing import Any, Literal

import reflex as rx

from portal.components.form.field import Id, Options, Text, control_aria, error_color, field, pair


def _bound(*, value: Any, default_value: Any, on_change: Any, on_blur: Any, name: str | None) -> dict[str, Any]:
    props = {"value": value, "default_value": default_value, "on_change": on_change, "on_blur": on_blur, "name": name}
    return {key: prop for key, prop in props.items() if prop is not None}


def _with(control: rx.Component, beside: list[rx.Component] | None) -> rx.Component:
    """What sits on the control's line (a unit, the form's button)."""
    if not beside:
        return control
    return rx.flex(control, *beside, align="center", gap="8px", width="100%")


def text_field(
    label: Text | None,
    *,
    id: Id,
    value: Any = None,
    default_value: Any = None,
    on_change: Any = None,
    on_blur: Any = None,
    debounce: int | None = None,
    error: Text | None = None,
    helper: Text | None = None,
    required: bool = False,
    optional: bool = False,
    type: str = "text",
    name: str | None = None,
    autocomplete: str | None = None,
    placeholder: str | None = None,
    size: Literal["1", "2", "3"] = "3",
    width: str = "100%",
    beside: list[rx.Component] | None = None,
    after: rx.Component | None = None,
    field_class: str | None = None,
    field_style: Any = None,
    **props: Any,
) -> rx.Component:
    """A labelled Radix text input; `props` go to the input (input_mode, max_length, key, custom_attrs...)."""
    control = rx.input(
        id=id,
        type=type,
        auto_complete=autocomplete,
        placeholder=placeholder,
        size=size,
        width=width,
        **_bound(value=value, default_value=default_value, on_change=on_change, on_blur=on_blur, name=name),
        **control_aria(id, error=error, helper=helper, required=required),
        **error_color(error),
        **props,
    )
    if debounce is not None:
        control = rx.debounce_input(control, debounce_timeout=debounce)
    return field(
        _with(control, beside),
        label=label,
        field_id=id,
        error=error,
        helper=helper,
        required=required,
        optional=optional,
        after=after,
        class_name=field_class,
        style=field_style,
    )


def textarea_field(
    label: Text | None,
    *,
    id: Id,
    value: Any = None,
    default_value: Any = None,
    on_change: Any = None,
    on_blur: Any = None,
    debounce: int | None = None,
    error: Text | None = None,
    helper: Text | None = None,
    required: bool = False,
    optional: bool = False,
    name: str | None = None,
    placeholder: str | None = None,
    rows: str = "3",
    size: Literal["1", "2", "3"] = "3",
    after: rx.Component | None = None,
    field_class: str | None = None,
    field_style: Any = None,
    **props: Any,
) -> rx.Component:
    """A labelled Radix text area."""
    control = rx.text_area(
        id=id,
        placeholder=placeholder,
        rows=rows,
        size=size,
        width="100%",
        **_bound(value=value, default_value=default_value, on_change=on_change, on_blur=on_blur, name=name),
        **control_aria(id, error=error, helper=helper, required=required),
        **error_color(error),
        **props,
    )
    if debounce is not None:
        control = rx.debounce_input(control, debounce_timeout=debounce)
    return field(
        control,
        label=label,
        field_id=id,
        error=error,
        helper=helper,
        required=required,
        optional=optional,
        after=after,
        class_name=field_class,
        style=field_style,
    )


def select_field(
    label: Text | None,
    *,
    id: Id,
    options: Options,
    value: Any = None,
    default_value: Any = None,
    on_change: Any = None,
    placeholder: str | None = None,
    native: bool = False,
    item: Any = pair,
    name: str | None = None,
    disabled: Any = None,
    error: Text | None = None,
    helper: Text | None = None,
    required: bool = False,
    optional: bool = False,
    size: Literal["1", "2", "3"] = "3",
    width: str = "100%",
    after: rx.Component | None = None,
    field_class: str | None = None,
    field_style: Any = None,
) -> rx.Component:
    """A labelled select of `options`: (value, text) pairs, or a Var of rows that `item` turns into pairs.

    Radix's select by default. `native=True` gives the browser's own select, drawn like a Radix text
    field of the same size: for long lists (countries, their states) the phone's own picker and
    type-to-find serve better, and `placeholder` is then its empty first option."""
    aria = control_aria(id, error=error, helper=helper, required=required)
    bound = _bound(value=value, default_value=default_value, on_change=on_change, on_blur=None, name=name)
    if native:
        if isinstance(options, rx.Var):
            items: list[Any] = [rx.foreach(options, lambda row: rx.el.option(item(row)[1], value=item(row)[0]))]
        else:
            items = [rx.el.option(text, value=key) for key, text in options]
        if placeholder is not None:
            items.insert(0, rx.el.option(placeholder, value=""))
        control = rx.el.select(
            *items,
            id=id,
            disabled=disabled,
            class_name="portal-select",
            custom_attrs={"data-size": size},
            style={"width": width},
            **bound,
            **aria,
        )
    else:
        if isinstance(options, rx.Var):
            entries: list[Any] = [rx.foreach(options, lambda row: rx.select.item(item(row)[1], value=item(row)[0]))]
        else:
            entries = [rx.select.item(text, value=key) for key, text in options]
        control = rx.select.root(
            rx.select.trigger(id=id, width=width, placeholder=placeholder, **aria, **error_color(error)),
            rx.select.content(*entries),
            size=size,
            disabled=disabled,
            **bound,
        )
    return field(
        control,
        label=label,
        field_id=id,
        error=error,
        helper=helper,
        required=required,
        optional=optional,
        after=after,
        class_name=field_class,
        style=field_style,
    )
