"""The shared data table: search, filters panel, sortable columns, row actions, selection,
pagination, and its empty, error and render-failure states.

Bound to a state built on `portal.states.table.DataTableState`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import reflex as rx
from reflex.components.base.error_boundary import ErrorBoundary

from portal.domain import table as rules

Row = Any  # a Var of dict[str, str]


@dataclass(frozen=True)
class Column:
    key: str  # the row field shown (unless `render` is given)
    label: str
    sort_key: str | None = None  # the sortBy name when the column is sortable
    render: Callable[[Row], rx.Component] | None = None
    min_width: str = "110px"
    label_hidden: bool = False  # the label is read by screen readers only (a column of icons, say)


@dataclass(frozen=True)
class RowAction:
    label: str
    on_click: Callable[[Row], Any]
    available_when: str | None = None  # a row field: the action shows where it is non-empty
    icon: str | None = None


@dataclass(frozen=True)
class FilterOption:
    value: str
    label: str


@dataclass(frozen=True)
class FilterSpec:
    name: str
    label: str
    type: str  # list | exclude | range
    options: tuple[FilterOption, ...] = field(default_factory=tuple)
    is_multi: bool = True


def _sort_header(state: Any, table_id: str, column: Column) -> rx.Component:
    active = state.sort_by == column.sort_key
    icon = rx.cond(
        active,
        rx.cond(state.sort_direction == rules.ASCENDING, rx.icon("arrow-up", size=14), rx.icon("arrow-down", size=14)),
        rx.icon("arrow-up-down", size=14, color="var(--gray-8)"),
    )
    return rx.el.button(
        column.label,
        icon,
        on_click=state.sort(column.sort_key),
        class_name="dt-sort",
        id=f"{table_id}-sort-{column.sort_key}",
        aria_label=f"Sort by {column.label}",
        data_direction=rx.cond(
            active, rx.cond(state.sort_direction == rules.ASCENDING, "ascending", "descending"), "none"
        ),
    )


def _header(
    state: Any, table_id: str, columns: list[Column], actions: list[RowAction], selectable: bool
) -> rx.Component:
    # The selection column's header names it for screen readers (an empty header is announced as nothing).
    cells = (
        [rx.table.column_header_cell(rx.el.span("Select", class_name="dt-sr-only"), width="40px")] if selectable else []
    )
    for column in columns:
        content: rx.Component | str
        if column.sort_key:
            content = _sort_header(state, table_id, column)
        elif column.label_hidden:
            content = rx.el.span(column.label, class_name="dt-sr-only")
        else:
            content = column.label
        cells.append(rx.table.column_header_cell(content, min_width=column.min_width, white_space="nowrap"))
    if actions:
        cells.append(
            rx.table.column_header_cell(rx.el.span("Actions", class_name="dt-sr-only"), class_name="dt-actions-head")
        )
    return rx.table.header(rx.table.row(*cells))


def _cell(column: Column, row: Row) -> rx.Component:
    body = column.render(row) if column.render else row[column.key]
    # data-label: the column's name beside the value when narrow screens stack a row as a card.
    label = "" if column.label_hidden else column.label
    return rx.table.cell(body, white_space="nowrap", custom_attrs={"data-label": label})


def _actions_cell(actions: list[RowAction], row: Row) -> rx.Component:
    buttons = []
    for action in actions:
        button = rx.button(
            *([rx.icon(action.icon, size=14)] if action.icon else []),
            action.label,
            size="1",
            on_click=action.on_click(row).stop_propagation,
            class_name="dt-action",
        )
        buttons.append(rx.cond(row[action.available_when] != "", button) if action.available_when else button)
    return rx.table.cell(rx.hstack(*buttons, spacing="2", justify="end"), white_space="nowrap", class_name="dt-actions")


def _body(
    state: Any,
    columns: list[Column],
    actions: list[RowAction],
    selectable: bool,
    on_row_click: Callable[[Row], Any] | None,
    strong_when: str | None,
    row_prefix: str,
) -> rx.Component:
    def render_row(row: Row) -> rx.Component:
        cells = []
        if selectable:
            cells.append(
                rx.table.cell(
                    rx.checkbox(
                        checked=state.selected_ids.contains(row["id"]),
                        on_change=lambda _checked: state.toggle_selected(row["id"]),
                        aria_label="Select row",
                    )
                )
            )
        cells += [_cell(c, row) for c in columns]
        if actions:
            cells.append(_actions_cell(actions, row))
        props: dict[str, Any] = {"custom_attrs": {"data-row-id": row["id"], "data-testid": f"{row_prefix}-row"}}
        if on_row_click is not None:
            props["on_click"] = on_row_click(row)
            props["class_name"] = "dt-row dt-clickable"
        else:
            props["class_name"] = "dt-row"
        if strong_when:
            props["font_weight"] = rx.cond(row[strong_when] != "", "700", "400")
            props["data_strong"] = rx.cond(row[strong_when] != "", "true", "false")
        return rx.table.row(*cells, **props)

    return rx.table.body(rx.foreach(state.rows, render_row))


def _message(icon: str, title: Any, body: Any = None, test_id: str = "") -> rx.Component:
    return rx.vstack(
        rx.box(rx.icon(icon, size=22, color="var(--accent-11)"), class_name="dt-empty-icon"),
        rx.text(title, weight="bold", size="3"),
        rx.text(body, size="2", color="var(--gray-11)") if body is not None else rx.fragment(),
        align="center",
        spacing="2",
        padding="48px 16px",
        width="100%",
        custom_attrs={"data-testid": test_id} if test_id else {},
    )


def _filters_panel(state: Any, table_id: str, filters: list[FilterSpec]) -> rx.Component:
    groups = []
    for spec in filters:
        if spec.type == "range":
            groups.append(
                rx.vstack(
                    rx.text(spec.label, weight="medium", size="2"),
                    rx.hstack(
                        rx.input(
                            type="date",
                            default_value=state.draft_range_from,
                            on_blur=state.set_range_from,
                            key=state.range_key.to_string() + "-from",
                            id=f"{table_id}-range-from",
                            aria_label=f"{spec.label} from",
                            size="2",
                        ),
                        rx.text("to", size="2", color="var(--gray-11)"),
                        rx.input(
                            type="date",
                            default_value=state.draft_range_to,
                            on_blur=state.set_range_to,
                            key=state.range_key.to_string() + "-to",
                            id=f"{table_id}-range-to",
                            aria_label=f"{spec.label} to",
                            size="2",
                        ),
                        align="center",
                        spacing="2",
                        wrap="wrap",
                    ),
                    spacing="2",
                )
            )
            continue
        options = [
            rx.el.label(
                rx.checkbox(
                    checked=state.draft_selected.contains(f"{spec.name}:{option.value}"),
                    on_change=lambda _c, v=option.value, n=spec.name, m=spec.is_multi: state.toggle_filter_value(
                        n, v, m
                    ),
                    id=f"{table_id}-filter-{spec.name}-{option.value}",
                    # Radix's checkbox is a button: the wrapping label does not name it for screen readers.
                    aria_labelledby=f"{table_id}-filter-{spec.name}-{option.value}-label",
                ),
                rx.text(option.label, size="2", id=f"{table_id}-filter-{spec.name}-{option.value}-label"),
                class_name="dt-option",
            )
            for option in spec.options
        ]
        groups.append(
            rx.vstack(
                rx.hstack(
                    rx.text(spec.label, weight="medium", size="2"),
                    rx.spacer(),
                    rx.select.root(
                        rx.select.trigger(variant="ghost", aria_label=f"{spec.label} filter mode"),
                        rx.select.content(
                            rx.select.item("is any of", value="list"), rx.select.item("is none of", value="exclude")
                        ),
                        value=rx.cond(state.draft_excluded.contains(spec.name), "exclude", "list"),
                        on_change=lambda mode, n=spec.name: state.set_filter_mode(n, mode),
                        size="1",
                    ),
                    width="100%",
                    align="center",
                ),
                rx.flex(*options, wrap="wrap", gap="8px 16px"),
                spacing="2",
                width="100%",
            )
        )
    return rx.cond(
        state.filters_open,
        rx.box(
            rx.vstack(
                *groups,
                rx.hstack(
                    rx.button(
                        "Reset",
                        variant="soft",
                        color_scheme="gray",
                        on_click=state.reset_filters,
                        id=f"{table_id}-filters-reset",
                    ),
                    rx.button("Apply", on_click=state.apply_filters, id=f"{table_id}-filters-apply"),
                    justify="end",
                    width="100%",
                    spacing="2",
                ),
                spacing="4",
            ),
            class_name="dt-filters",
            id=f"{table_id}-filters",
        ),
    )


def _range_dialog(state: Any, table_id: str) -> rx.Component:
    return rx.alert_dialog.root(
        rx.alert_dialog.content(
            rx.alert_dialog.title("Date range"),
            rx.alert_dialog.description(state.range_question, id=f"{table_id}-range-question"),
            rx.hstack(
                rx.alert_dialog.cancel(
                    rx.button("Cancel", variant="soft", color_scheme="gray", on_click=state.cancel_range)
                ),
                rx.alert_dialog.action(
                    rx.button(rules.RANGE_CONFIRM_BUTTON, on_click=state.confirm_range, id=f"{table_id}-use-range")
                ),
                justify="end",
                spacing="2",
                margin_top="16px",
            ),
            max_width="440px",
        ),
        open=state.range_confirm_open,
    )


def _toolbar(state: Any, table_id: str, filters: list[FilterSpec], search_placeholder: str) -> rx.Component:
    search = rx.debounce_input(
        rx.input(
            rx.input.slot(rx.icon("search", size=16)),
            placeholder=search_placeholder,
            value=state.search_text,
            on_change=state.search,
            id=f"{table_id}-search",
            aria_label=search_placeholder,
            size="2",
            class_name="dt-search",
        ),
        debounce_timeout=rules.SEARCH_DEBOUNCE_MS,
    )
    filter_button = rx.button(
        rx.icon("sliders-horizontal", size=16),
        "Filters",
        rx.cond(state.applied_filter_count > 0, rx.badge(state.applied_filter_count, radius="full", variant="solid")),
        variant=rx.cond(state.filters_open, "solid", "soft"),
        color_scheme="gray",
        high_contrast=True,  # white on Radix gray-9 (the open panel's solid button) is 3.3:1
        on_click=state.toggle_filters,
        id=f"{table_id}-filters-toggle",
    )
    # data-search: the search the rows below were loaded for (tests wait for it instead of the debounce).
    return rx.flex(
        search,
        filter_button if filters else rx.fragment(),
        gap="8px",
        align="center",
        class_name="dt-toolbar",
        id=f"{table_id}-toolbar",
        data_search=state.search_text,
    )


def _pagination(state: Any, table_id: str) -> rx.Component:
    return rx.cond(
        state.pagination_visible,
        rx.flex(
            rx.hstack(
                rx.text("Rows per page", size="2", color="var(--gray-11)"),
                rx.select(
                    state.page_size_choices,
                    value=state.page_size.to_string(),
                    on_change=state.set_page_size,
                    size="1",
                    id=f"{table_id}-page-size",
                    # The trigger (the button a person reaches) gets the name: rx.select passes custom_attrs to it.
                    custom_attrs={"aria-label": "Rows per page"},
                ),
                align="center",
                spacing="2",
            ),
            rx.hstack(
                rx.text(state.range_text, size="2", color="var(--gray-11)", id=f"{table_id}-range"),
                rx.icon_button(
                    rx.icon("chevron-left", size=16),
                    variant="soft",
                    color_scheme="gray",
                    size="1",
                    disabled=state.page <= 1,
                    on_click=state.previous_page,
                    aria_label="Previous page",
                    id=f"{table_id}-prev",
                ),
                rx.text("Page ", state.page, " of ", state.page_count, size="2", id=f"{table_id}-page"),
                rx.icon_button(
                    rx.icon("chevron-right", size=16),
                    variant="soft",
                    color_scheme="gray",
                    size="1",
                    disabled=state.page >= state.page_count,
                    on_click=state.next_page,
                    aria_label="Next page",
                    id=f"{table_id}-next",
                ),
                align="center",
                spacing="2",
            ),
            justify="between",
            align="center",
            wrap="wrap",
            gap="12px",
            class_name="dt-pagination",
            id=f"{table_id}-pagination",
        ),
    )


def render_failure() -> rx.Component:
    return rx.callout(rules.RENDER_FAILURE, icon="triangle-alert", color_scheme="red", role="alert")


def data_table(
    state: Any,
    *,
    table_id: str,
    columns: list[Column],
    actions: list[RowAction] | None = None,
    filters: list[FilterSpec] | None = None,
    selectable: bool = False,
    selection_noun: str = "tests",
    on_row_click: Callable[[Row], Any] | None = None,
    strong_when: str | None = None,
    search_placeholder: str = "Search",
) -> rx.Component:
    actions, filters = actions or [], filters or []
    table = rx.table.root(
        _header(state, table_id, columns, actions, selectable),
        _body(state, columns, actions, selectable, on_row_click, strong_when, table_id),
        variant="ghost",
        size="2",
        width="100%",
        class_name="dt-table",
    )
    content = rx.cond(
        state.error,
        _message("circle-alert", rules.ERROR_TITLE, rules.ERROR_BODY, f"{table_id}-error"),
        rx.cond(
            ~state.loaded,
            rx.center(rx.spinner(size="3"), padding="48px"),
            rx.cond(
                state.total > 0,
                rx.box(table, class_name="dt-scroll"),
                _message("inbox", state.empty_message, None, f"{table_id}-empty"),
            ),
        ),
    )
    selection = (
        rx.cond(
            state.selected_ids.length() > 0,
            rx.hstack(
                rx.text(
                    state.selected_ids.length(),
                    rx.cond(
                        state.selected_ids.length() == 1,
                        f" {rules.singular(selection_noun)} selected",
                        f" {selection_noun} selected",
                    ),
                    size="2",
                    weight="medium",
                    class_name="dt-selection-count",
                ),
                rx.button("Clear", size="1", variant="ghost", on_click=state.clear_selection),
                class_name="dt-selection",
                align="center",
            ),
        )
        if selectable
        else rx.fragment()
    )
    body = rx.vstack(
        _toolbar(state, table_id, filters, search_placeholder),
        _filters_panel(state, table_id, filters) if filters else rx.fragment(),
        selection,
        content,
        _pagination(state, table_id),
        _range_dialog(state, table_id) if any(f.type == "range" for f in filters) else rx.fragment(),
        spacing="3",
        width="100%",
        id=table_id,
    )
    return ErrorBoundary.create(body, fallback_render=render_failure(), on_error=state.log_render_failure)
