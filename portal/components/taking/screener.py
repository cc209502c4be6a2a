"""The screener view (test-taking spec, 'Screener'): heading, intro, the question, Confirm.

Single choice: radio buttons; multiple choice: checkboxes; matrix: a table with the statements
as rows and the answers as columns (a radio button per cell, one choice per row, or checkboxes
with allowMultiple) inside a horizontally scrollable region with the hint 'Scroll horizontally
to see all options'. Every input is labelled (its answer text; a matrix cell by
'<statement>: <answer>') and keyboard operable (arrow keys move within a radio group, Space
ticks a checkbox; the scroll region takes focus so arrow keys scroll it). Confirm stays
disabled until an answer is chosen (every statement, for a matrix).
"""

from __future__ import annotations

import reflex as rx
from reflex.vars import ArrayVar

from portal.domain.taking import screener as rules
from portal.states.taking.screener import ScreenerState

_OPTION_STYLE = {"display": "flex", "alignItems": "center", "gap": "10px", "cursor": "pointer", "padding": "4px 0"}
_CELL_STYLE = {"padding": "10px 12px", "textAlign": "center", "borderBottom": "1px solid var(--gray-5)"}
_HEAD_STYLE = {**_CELL_STYLE, "fontWeight": 500, "fontSize": "14px", "minWidth": "110px", "verticalAlign": "bottom"}
_ROW_HEAD_STYLE = {
    **_CELL_STYLE,
    "textAlign": "left",
    "fontWeight": 400,
    "minWidth": "200px",
    "position": "sticky",
    "left": "0",
    "background": "var(--color-panel-solid)",
}
_NATIVE_INPUT_STYLE = {"width": "18px", "height": "18px", "accentColor": "var(--accent-9)", "cursor": "pointer"}


def _row(key: str | rx.Var) -> ArrayVar[list[int]]:
    return ScreenerState.selection[key]


def _single() -> rx.Component:
    chosen = _row("0")
    return rx.radio_group.root(
        rx.foreach(
            ScreenerState.answers,
            lambda text, i: rx.el.label(
                rx.radio_group.item(value=i.to_string(), id="screener-answer-" + i.to_string()),
                rx.text(text, size="3"),
                style=_OPTION_STYLE,
            ),
        ),
        value=rx.cond(chosen.length() > 0, chosen[0].to_string(), ""),
        on_change=lambda value: ScreenerState.choose(0, value),
        aria_labelledby="screener-question",
        id="screener-answers",
        size="3",
    )


def _multiple() -> rx.Component:
    chosen = _row("0")
    return rx.vstack(
        rx.foreach(
            ScreenerState.answers,
            lambda text, i: rx.checkbox(
                text,
                checked=chosen.contains(i),
                on_change=lambda checked: ScreenerState.toggle(0, i, checked),
                id="screener-answer-" + i.to_string(),
                size="3",
            ),
        ),
        role="group",
        aria_labelledby="screener-question",
        id="screener-answers",
        spacing="3",
        align="start",
    )


def _cell(row_text: rx.Var, r: rx.Var, column_text: rx.Var, c: rx.Var) -> rx.Component:
    label = row_text.to(str) + ": " + column_text.to(str)
    cell_id = "screener-cell-" + r.to_string() + "-" + c.to_string()
    chosen = _row(r.to_string())
    return rx.el.td(
        rx.cond(
            ScreenerState.allow_multiple,
            rx.checkbox(
                checked=chosen.contains(c),
                on_change=lambda checked: ScreenerState.toggle(r, c, checked),
                aria_label=label,
                id=cell_id,
                size="3",
            ),
            rx.el.input(
                type="radio",
                name="screener-row-" + r.to_string(),
                value=c.to_string(),
                checked=chosen.contains(c),
                on_change=ScreenerState.choose(r, c),
                aria_label=label,
                id=cell_id,
                style=_NATIVE_INPUT_STYLE,
            ),
        ),
        style=_CELL_STYLE,
    )


def _matrix() -> rx.Component:
    table = rx.el.table(
        rx.el.thead(
            rx.el.tr(
                rx.el.td(style=_HEAD_STYLE),
                rx.foreach(ScreenerState.columns, lambda column: rx.el.th(column, scope="col", style=_HEAD_STYLE)),
            ),
        ),
        rx.el.tbody(
            rx.foreach(
                ScreenerState.rows,
                lambda row_text, r: rx.el.tr(
                    rx.el.th(row_text, scope="row", style=_ROW_HEAD_STYLE),
                    rx.foreach(ScreenerState.columns, lambda column_text, c: _cell(row_text, r, column_text, c)),
                    role=rx.cond(ScreenerState.allow_multiple, "group", "radiogroup"),
                    aria_label=row_text,
                    class_name="screener-matrix-row",
                ),
            ),
        ),
        style={"borderCollapse": "collapse", "width": "100%"},
        aria_labelledby="screener-question",
        id="screener-matrix",
    )
    return rx.vstack(
        rx.text(rules.SCROLL_HINT, size="2", color="var(--gray-11)", id="screener-scroll-hint"),
        rx.box(
            table,
            role="region",
            aria_labelledby="screener-question",
            aria_describedby="screener-scroll-hint",
            tab_index=0,
            id="screener-matrix-scroll",
            style={
                "overflowX": "auto",
                "width": "100%",
                "maxWidth": "100%",
                "border": "1px solid var(--gray-5)",
                "borderRadius": "var(--radius-3)",
            },
        ),
        spacing="2",
        width="100%",
    )


def _question() -> rx.Component:
    return rx.match(
        ScreenerState.kind,
        (rules.SINGLE, _single()),
        (rules.MULTIPLE, _multiple()),
        (rules.MATRIX, _matrix()),
        rx.fragment(),
    )


def _error() -> rx.Component:
    return rx.cond(
        ScreenerState.error != "",
        rx.callout(
            ScreenerState.error,
            icon="triangle-alert",
            color_scheme="red",
            role="alert",
            id="screener-error",
            width="100%",
        ),
    )


def _form() -> rx.Component:
    return rx.vstack(
        rx.text(ScreenerState.question, size="4", weight="medium", id="screener-question", as_="p"),
        _question(),
        _error(),
        rx.button(
            rules.CONFIRM,
            on_click=ScreenerState.confirm,
            disabled=~ScreenerState.can_confirm | ScreenerState.submitting,
            loading=ScreenerState.submitting,
            size="3",
            type="button",
            id="screener-confirm",
        ),
        spacing="4",
        width="100%",
        align="start",
    )


def _failed() -> rx.Component:
    return rx.vstack(
        rx.callout(rules.FAILED, icon="info", color_scheme="gray", role="status", id="screener-failed", width="100%"),
        rx.button(rx.el.a(rules.BACK_HOME, href="/", id="screener-home"), as_child=True, variant="soft"),
        spacing="4",
        width="100%",
        align="start",
    )


def screener_view() -> rx.Component:
    """The screener of the rating page; it loads itself when shown (ScreenerState.begin)."""
    return rx.box(
        rx.cond(
            ScreenerState.loaded,
            rx.vstack(
                rx.heading(rules.HEADING, as_="h1", size="6", id="screener-heading"),
                rx.cond(
                    ScreenerState.failed,
                    _failed(),
                    rx.vstack(
                        rx.text(rules.INTRO, size="3", color="var(--gray-11)", id="screener-intro"),
                        rx.cond(ScreenerState.kind != "", _form(), _error()),
                        spacing="4",
                        width="100%",
                    ),
                ),
                spacing="4",
                width="100%",
                max_width="760px",
                margin_x="auto",
                padding="24px 16px",
                id="screener",
                aria_labelledby="screener-heading",
                role="region",
            ),
            rx.center(rx.spinner(size="3"), padding="64px", aria_label="Loading"),
        ),
        on_mount=ScreenerState.begin,
        width="100%",
    )
