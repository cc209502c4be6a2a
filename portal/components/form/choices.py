"""Checkboxes, switches, radio groups and the searchable multi-select of the form kit (Radix controls).

Options are (value, text) pairs, or a Var of rows that `item` turns into a pair. A long list scrolls in
its own box and asks for its next page (`on_more`) when scrolled or by its 'Load more' button.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import reflex as rx
from reflex.vars import ArrayVar, ObjectVar, StringVar

from portal.components.form.field import Id, Options, Text, control_aria, field, pair, suffixed

Toggle = Callable[[Any], Any]
MORE_THROTTLE_MS = 500  # at most one 'next page' event per half second of scrolling


def checkbox_field(
    label: Text,
    *,
    id: Id,
    checked: Any,
    on_change: Any,
    disabled: Any = None,
    helper: Text | None = None,
    error: Text | None = None,
    after: rx.Component | None = None,
    field_class: str | None = None,
    field_style: Any = None,
) -> rx.Component:
    """One checkbox, its text its label."""
    control = rx.checkbox(
        label,
        id=id,
        checked=checked,
        on_change=on_change,
        disabled=disabled,
        size="2",
        **control_aria(id, error=error, helper=helper),
    )
    return field(
        control,
        label=None,
        field_id=id,
        error=error,
        helper=helper,
        after=after,
        class_name=field_class,
        style=field_style,
    )


def switch_field(
    label: Text,
    *,
    id: Id,
    checked: Any,
    on_change: Any,
    aria_label: str | None = None,
    helper: Text | None = None,
    after: rx.Component | None = None,
    field_class: str | None = None,
    field_style: Any = None,
) -> rx.Component:
    """A switch with its text beside it (the switch's name is `aria_label` when the text is its state)."""
    control = rx.el.label(
        rx.switch(
            checked=checked, on_change=on_change, id=id, aria_label=aria_label, **control_aria(id, helper=helper)
        ),
        rx.text(label, size="2", weight="medium"),
        class_name="portal-switch",
    )
    return field(
        control, label=None, field_id=id, helper=helper, after=after, class_name=field_class, style=field_style
    )


def _option_id(prefix: str | None, value: Any) -> Any:
    return None if prefix is None else f"{prefix}-{value}"


def checkbox_group_field(
    label: Text,
    *,
    id: Id,
    options: Options,
    checked: ArrayVar[Any],
    on_toggle: Toggle,
    item: Callable[[Any], tuple[Any, Any]] = pair,
    option_prefix: str | None = None,
    disabled_values: ArrayVar[Any] | None = None,
    row: bool = False,
    empty: str | None = None,
    error: Text | None = None,
    helper: Text | None = None,
    after: rx.Component | None = None,
    field_class: str | None = None,
    field_style: Any = None,
) -> rx.Component:
    """A fieldset of checkboxes named by its legend: `checked` holds the chosen values, `on_toggle(value)`
    turns one on or off, `disabled_values` those that may not be chosen now. Options listed here get the
    id `option_prefix-value`; `row` lays them out in wrapping lines; `empty` is said when a Var has none."""

    def box(value: Any, text: Any, option_id: Any = None) -> rx.Component:
        return rx.checkbox(
            text,
            checked=checked.contains(value),
            on_change=lambda _on: on_toggle(value),
            id=option_id,
            disabled=disabled_values.contains(value) if disabled_values is not None else None,
            size="2",
        )

    if isinstance(options, rx.Var):
        boxes: list[Any] = [rx.foreach(options, lambda row_: box(*item(row_)))]
        if empty is not None:
            boxes.insert(0, rx.cond(options.length() == 0, rx.text(empty, size="2", class_name="portal-helper")))
    else:
        boxes = [box(value, text, _option_id(option_prefix, value)) for value, text in options]
    control = rx.el.fieldset(
        rx.el.legend(label, class_name="portal-label"),
        rx.flex(*boxes, direction="row" if row else "column", wrap="wrap", gap="8px 16px" if row else "8px"),
        class_name="portal-fieldset",
        id=id,
        **control_aria(id, error=error, helper=helper),
    )
    return field(
        control,
        label=None,
        field_id=id,
        error=error,
        helper=helper,
        after=after,
        class_name=field_class,
        style=field_style,
    )


def scroll_list(*children: Any, on_more: Any = None, has_more: Any = None, **props: Any) -> rx.Component:
    """A long list in a box of its own; its next page comes when it is scrolled or 'Load more' is pressed."""
    more = []
    if on_more is not None:
        props["on_scroll"] = on_more.throttle(MORE_THROTTLE_MS)
        button = rx.button("Load more", size="1", variant="ghost", type="button", on_click=on_more)
        more = [rx.cond(has_more, button) if has_more is not None else button]
    return rx.box(*children, *more, class_name="portal-picker", **props)


def list_load_error(message: rx.Var, *, on_retry: Any, field_id: Id) -> rx.Component:
    """The options could not be fetched: say so, with 'Try again'."""
    return rx.cond(
        message != "",
        rx.callout.root(
            rx.callout.text(message),
            rx.button("Try again", size="1", variant="soft", on_click=on_retry, type="button"),
            color_scheme="red",
            id=suffixed(field_id, "-load-error"),
            role="alert",
        ),
    )


def radio_group_field(
    label: Text,
    *,
    id: Id,
    options: Options,
    value: Any,
    on_change: Any,
    item: Callable[[Any], tuple[Any, Any]] = pair,
    option_prefix: str | StringVar | None = None,
    on_more: Any = None,
    has_more: Any = None,
    load_error: rx.Var | None = None,
    on_retry: Any = None,
    error: Text | None = None,
    helper: Text | None = None,
    after: rx.Component | None = None,
    field_class: str | None = None,
    field_style: Any = None,
) -> rx.Component:
    """A Radix radio group named by its label (`id-label`); each option `option_prefix-value`. With `on_more`
    the options scroll in their own box and load page by page."""
    label_id = suffixed(id, "-label")

    def choice(key: Any, text: Any) -> rx.Component:
        item_id = None if option_prefix is None else option_prefix + "-" + key
        return rx.el.label(
            rx.radio_group.item(value=key, id=item_id), rx.text(text, size="2"), class_name="portal-choice"
        )

    if isinstance(options, rx.Var):
        choices: list[Any] = [rx.foreach(options, lambda row: choice(*item(row)))]
    else:
        choices = [choice(key, text) for key, text in options]
    group = rx.radio_group.root(
        *choices,
        value=value,
        on_change=on_change,
        aria_labelledby=label_id,
        id=id,
        **control_aria(id, error=error, helper=helper),
    )
    control: rx.Component = scroll_list(group, on_more=on_more, has_more=has_more) if on_more is not None else group
    if load_error is not None:
        control = rx.fragment(control, list_load_error(load_error, on_retry=on_retry, field_id=id))
    return field(
        control,
        label=label,
        field_id=id,
        label_tag="div",
        label_id=label_id,
        error=error,
        helper=helper,
        after=after,
        class_name=field_class,
        style=field_style,
    )


def chips(ids: ArrayVar[Any], *, names: ObjectVar[Any], on_remove: Toggle, chips_id: str) -> rx.Component:
    """The chosen options as chips, each with its remove button."""
    return rx.flex(
        rx.foreach(
            ids,
            lambda i: rx.badge(
                names.get(i, i),
                rx.el.button(
                    rx.icon("x", size=12),
                    type="button",
                    on_click=on_remove(i),
                    aria_label="Remove " + names.get(i, i).to(str),
                    class_name="portal-chip-remove",
                ),
                size="2",
                variant="soft",
                radius="full",
                class_name="portal-chip",
            ),
        ),
        gap="6px",
        wrap="wrap",
        id=chips_id,
    )


def multi_select(
    label: Text,
    *,
    id: Id,
    options: ArrayVar[Any],
    chosen: ArrayVar[Any],
    names: ObjectVar[Any],
    on_toggle: Toggle,
    chips_id: str,
    list_id: str,
    option_class: str | None = None,
    search_id: str | None = None,
    search_value: rx.Var | None = None,
    on_search: Any = None,
    search_placeholder: str = "Search",
    no_matches: rx.Var | None = None,
    no_matches_id: str | None = None,
    on_more: Any = None,
    has_more: Any = None,
    load_error: rx.Var | None = None,
    on_retry: Any = None,
    error: Text | None = None,
    helper: Text | None = None,
    after: rx.Component | None = None,
    field_class: str | None = None,
    field_style: Any = None,
) -> rx.Component:
    """Many of a long list: the chosen ones as chips, an optional search box (the label's control; sent when
    typing pauses), and the options as checkboxes in a scrolling list (`options`: rows of value and text;
    `names`: the text of each chosen value). `no_matches` is true when a search found nothing."""
    parts: list[Any] = [chips(chosen, names=names, on_remove=on_toggle, chips_id=chips_id)]
    if search_id is not None:
        parts.append(
            rx.debounce_input(
                rx.input(
                    rx.input.slot(rx.icon("search", size=14)),
                    placeholder=search_placeholder,
                    value=search_value,
                    on_change=on_search,
                    id=search_id,
                    size="2",
                ),
                debounce_timeout=400,
            )
        )
    listed: list[Any] = [
        rx.foreach(
            options,
            lambda row: rx.checkbox(
                row[1],
                checked=chosen.contains(row[0]),
                on_change=lambda _on: on_toggle(row[0]),
                class_name=option_class,
                size="2",
            ),
        )
    ]
    if no_matches is not None:
        listed.append(
            rx.cond(no_matches, rx.text("No matches found", size="2", class_name="portal-helper", id=no_matches_id))
        )
    parts.append(
        scroll_list(
            *listed,
            on_more=on_more,
            has_more=has_more,
            id=list_id,
            role="group",
            aria_label=label,
            **control_aria(id, error=error, helper=helper),
        )
    )
    if load_error is not None:
        parts.append(list_load_error(load_error, on_retry=on_retry, field_id=id))
    control = rx.el.div(*parts, class_name="portal-field")
    if search_id is not None:
        return field(
            control,
            label=label,
            field_id=id,
            label_target=search_id,
            error=error,
            helper=helper,
            after=after,
            class_name=field_class,
            style=field_style,
        )
    return field(
        control,
        label=label,
        field_id=id,
        label_tag="div",
        error=error,
        helper=helper,
        after=after,
        class_name=field_class,
        style=field_style,
    )
