"""/admin/tests/[test_id]/results: what participants answered, refreshed while the page is open.

The funnel of the whole test; the reviews the filters choose with their time taken; for each question a card
that fits its type; a preference test's shares with their 95% interval and its order table; a highlight or
pricing test's screenshot with its numbered areas. Every chart is drawn with Recharts and hidden from screen
readers: beside it, visible, is its text alternative (a sentence with every number it draws, or a table).
Element ids: see docs/decisions.md, "The results page".
"""

from __future__ import annotations

from typing import Any

import reflex as rx

from portal.components.admin import admin_layout
from portal.components.admin_pages import staff_page
from portal.components.admin_test import test_tabs
from portal.components.form import select_field, text_field
from portal.domain.staff import roles
from portal.states.admin.guard import StaffState
from portal.states.admin.results import REFRESH_SECONDS
from portal.states.admin.results import TestResultsState as S

MUTED = "var(--gray-11)"
SEARCH_DEBOUNCE_MS = 500
# The answers' names beside the bars take less room on a phone (Recharts lays the chart out in pixels; its
# labels wrap to the axis's width). Read from the window each time the chart renders.
AXIS_WIDTH: rx.Var[int] = rx.Var(
    _js_expr="((typeof window !== 'undefined' && window.innerWidth < 600) ? 104 : 180)", _var_type=int
)


# --- Pieces --------------------------------------------------------------------------------------------------


def _figures(rows: Any, prefix: str, label: str) -> rx.Component:
    """Figures as a definition list: a label over a big number ('Invited' / '12')."""
    return rx.el.dl(
        rx.foreach(
            rows,
            lambda f: rx.el.div(
                rx.el.dt(f["label"]),
                rx.el.dd(f["value"]),
                class_name="results-figure",
                id=prefix + "-" + f["key"],
            ),
        ),
        class_name="results-figures",
        aria_label=label,
        id=prefix,
    )


def _panel(*children: rx.Component, **props: Any) -> rx.Component:
    return rx.el.section(*children, class_name="admin-panel results-panel", **props)


def _scroll(table: rx.Component, label: Any) -> rx.Component:
    """A table in a box that scrolls sideways on a phone, reachable with the keyboard."""
    return rx.box(table, class_name="results-scroll", tab_index=0, role="region", aria_label=label, width="100%")


def _chart(rows: Any, height: Any, axis: Any, *, percent: bool = True, errors: bool = False) -> rx.Component:
    """Horizontal bars (Recharts), hidden from screen readers: the text beside the chart says its numbers."""
    bar_children: list[rx.Component] = []
    if errors:  # the interval's line through the bar's end (the table above the chart says the numbers)
        bar_children.append(
            rx.recharts.error_bar(
                data_key="err",
                width=8,
                stroke="var(--gray-12)",
                stroke_width=1.5,
                direction="x",
                # Drawn at once, as the bars are (Recharts 3 grows an error bar from its centre by default).
                custom_attrs={"isAnimationActive": False},
            )
        )
    else:  # each bar's count and share beside it
        bar_children.append(rx.recharts.label_list(data_key="text", position="right", fill="var(--gray-12)"))
    return rx.box(
        rx.recharts.bar_chart(
            rx.recharts.cartesian_grid(horizontal=False, stroke_dasharray="3 3", stroke="var(--gray-6)"),
            rx.recharts.x_axis(
                type_="number",
                domain=[0, 100] if percent else [0, "auto"],
                unit="%" if percent else "",
                tick={"fill": "var(--gray-11)", "fontSize": 12},
                stroke="var(--gray-8)",
                allow_decimals=not percent,
            ),
            rx.recharts.y_axis(
                data_key="short",
                type_="category",
                width=AXIS_WIDTH,
                interval=0,
                tick={"fill": "var(--gray-12)", "fontSize": 12},
                stroke="var(--gray-8)",
            ),
            rx.recharts.bar(
                *bar_children,
                data_key="value",
                fill="var(--accent-9)",
                radius=[0, 4, 4, 0],
                bar_size=20,
                min_point_size=2,  # a 0% answer still shows its bar's label ('0 · 0%')
                is_animation_active=False,
            ),
            data=rows,
            layout="vertical",
            width="100%",
            height=height,
            margin={"top": 4, "right": 24 if errors else 64, "bottom": 4, "left": 0},
            custom_attrs={"accessibilityLayer": False},
        ),
        rx.text(axis, size="1", color=MUTED, text_align="center"),
        aria_hidden="true",
        width="100%",
        class_name="results-chart",
    )


def _summary(text: Any, element_id: Any) -> rx.Component:
    return rx.text(text, size="2", class_name="results-summary", id=element_id)


def _table(columns: Any, rows: Any, table_id: Any, caption: Any) -> rx.Component:
    """A table with a header row (its first column names each row) in a sideways scroll box."""
    return _scroll(
        rx.el.table(
            rx.el.caption(caption, class_name="sr-only"),
            rx.el.thead(rx.el.tr(rx.foreach(columns, lambda c: rx.el.th(c, scope="col")))),
            rx.el.tbody(
                rx.foreach(
                    rows,
                    lambda r: rx.el.tr(
                        rx.el.th(r["label"], scope="row"),
                        rx.foreach(r["cells"], lambda cell: rx.el.td(cell)),
                    ),
                )
            ),
            class_name="results-table",
            id=table_id,
        ),
        caption,
    )


# --- A question's card -----------------------------------------------------------------------------------------


def _text_answers(card: Any) -> rx.Component:
    return rx.vstack(
        text_field(
            "Search the answers",
            id=card["id"] + "-search",
            type="search",
            value=card["query"],
            on_change=lambda v: S.search(card["key"], v),
            debounce=SEARCH_DEBOUNCE_MS,
            size="2",
            autocomplete="off",
            max_length=100,
        ),
        rx.text(card["texts_note"], size="2", color=MUTED, id=card["id"] + "-note", aria_live="polite"),
        rx.cond(
            card["texts"].length() > 0,
            rx.el.ul(
                rx.foreach(
                    card["texts"],
                    lambda t: rx.el.li(
                        rx.text(t["text"], size="2", class_name="results-answer-text"),
                        rx.text(t["words"], size="1", color=MUTED, class_name="results-answer-words"),
                        class_name="results-answer",
                    ),
                ),
                class_name="results-answers",
                id=card["id"] + "-answers",
            ),
        ),
        spacing="2",
        width="100%",
    )


def _card_body(card: Any) -> rx.Component:
    shares = rx.vstack(
        _chart(card["chart"], card["chart_height"], card["axis"]),
        rx.cond(card["figures"].length() > 0, _figures(card["figures"], card["id"] + "-figures", "Mean")),
        _summary(card["summary"], card["id"] + "-summary"),
        spacing="3",
        width="100%",
    )
    rank = rx.vstack(
        _chart(card["chart"], card["chart_height"], card["axis"], percent=False),
        _summary(card["summary"], card["id"] + "-summary"),
        spacing="3",
        width="100%",
    )
    number = rx.vstack(
        _figures(card["figures"], card["id"] + "-figures", "Summary of the numbers given"),
        _summary(card["summary"], card["id"] + "-summary"),
        spacing="3",
        width="100%",
    )
    matrix = _table(card["columns"], card["table"], card["id"] + "-table", "Answers per statement: " + card["title"])
    return rx.cond(
        card["answered"] == "No answers yet",
        rx.text("No answers yet.", size="2", color=MUTED, id=card["id"] + "-summary"),
        rx.match(
            card["shape"],
            ("choice", "multi", "rating", shares),
            ("rank", rank),
            ("number", number),
            ("matrix", matrix),
            ("text", _text_answers(card)),
            rx.fragment(),
        ),
    )


def _card(card: Any, heading: str) -> rx.Component:
    title_id = card["id"] + "-title"
    return rx.el.section(
        rx.hstack(
            rx.heading(card["title"], size="3", as_=heading, id=title_id, class_name="results-card-title"),
            rx.badge(card["answered"], variant="soft", color_scheme="gray", high_contrast=True),
            justify="between",
            align="start",
            spacing="3",
            width="100%",
        ),
        _card_body(card),
        class_name="admin-panel results-card",
        id=card["id"],
        aria_labelledby=title_id,
    )


def _section(section: Any) -> rx.Component:
    return rx.cond(
        section["title"] != "",
        rx.el.div(
            rx.heading(section["title"], size="4", as_="h3", class_name="results-area-title"),
            rx.foreach(section["cards"], lambda c: _card(c, "h4")),
            class_name="results-section",
            id=section["id"],
        ),
        rx.el.div(
            rx.foreach(section["cards"], lambda c: _card(c, "h3")),
            class_name="results-section",
            id=section["id"],
        ),
    )


# --- A preference test -------------------------------------------------------------------------------------------

CONCEPT_HEADERS = ("Concept", "Votes", "Share", "95% interval")


def _concept(row: Any, index: Any) -> rx.Component:
    return rx.el.tr(
        rx.el.th(
            rx.hstack(
                rx.cond(
                    row["url"] != "",
                    rx.el.img(src=row["url"], alt="", class_name="results-thumb", loading="lazy"),
                ),
                rx.text(row["label"], size="2", weight="medium"),
                align="center",
                spacing="3",
            ),
            scope="row",
        ),
        rx.el.td(row["votes"]),
        rx.el.td(row["share"]),
        rx.el.td(row["ci"]),
        id="results-concept-" + index.to_string(),
    )


def _preference() -> rx.Component:
    p: Any = S.preference  # (a TypedDict Var: its fields are read in the browser)
    return _panel(
        rx.hstack(
            rx.heading(p["prompt"], size="4", as_="h2", id="results-preference-title"),
            rx.badge(p["answered"], variant="soft", color_scheme="gray", high_contrast=True),
            justify="between",
            align="start",
            spacing="3",
            width="100%",
        ),
        rx.text(
            "Each concept's share of the votes with its 95% confidence interval (Wilson's): on the chart, the line "
            "through the end of each bar spans the interval.",
            size="2",
            color=MUTED,
        ),
        _scroll(
            rx.el.table(
                rx.el.caption("Votes per concept", class_name="sr-only"),
                rx.el.thead(rx.el.tr(*[rx.el.th(h, scope="col") for h in CONCEPT_HEADERS])),
                rx.el.tbody(rx.foreach(p["concepts"], _concept)),
                class_name="results-table",
                id="results-preference-table",
            ),
            "Votes per concept",
        ),
        _chart(p["chart"], p["chart_height"], "Share of the votes (%), with its 95% interval", errors=True),
        _summary(p["summary"], "results-preference-summary"),
        rx.heading("Order effect", size="3", as_="h3", margin_top="8px"),
        rx.text(
            "Concepts are shown in an order drawn for each participant. For each position: how often each concept "
            "shown there was chosen, and how many of all choices fell on that position. A concept chosen far more "
            "often when shown first points to the order rather than a preference.",
            size="2",
            color=MUTED,
        ),
        _table(p["columns"], p["order"], "results-order", "Chosen of shown, by the position a concept was shown in"),
        _summary(p["order_summary"], "results-order-summary"),
        id="results-preference",
        aria_labelledby="results-preference-title",
    )


# --- A highlight or pricing test's areas ----------------------------------------------------------------------------


def _area_box(box: Any) -> rx.Component:
    return rx.el.div(
        rx.el.span(box["number"] + " · " + box["answered"], class_name="results-area-label"),
        class_name="results-area",
        id="results-area-" + box["number"],
        style={"left": box["left"], "top": box["top"], "width": box["width"], "height": box["height"]},
    )


def _areas() -> rx.Component:
    return _panel(
        rx.heading("Areas on the page", size="4", as_="h2", id="results-areas-title"),
        rx.text(
            "The screenshot participants read, with its numbered areas and how many reviews answered about each. "
            "Each area's questions follow below.",
            size="2",
            color=MUTED,
        ),
        rx.cond(
            S.screenshot != "",
            rx.box(
                rx.el.div(
                    rx.el.img(
                        src=S.screenshot,
                        alt="Screenshot of the page under test; its areas are listed below it.",
                        class_name="results-shot-image",
                    ),
                    rx.el.div(rx.foreach(S.areas, _area_box), aria_hidden="true"),
                    class_name="results-shot",
                ),
                class_name="results-shot-pane",
                tab_index=0,
                role="region",
                aria_label="Screenshot with its numbered areas",
            ),
        ),
        rx.el.ul(
            rx.foreach(
                S.areas,
                lambda box: rx.el.li(
                    rx.el.a(box["label"], href="#results-area-" + box["number"] + "-questions"),
                    id="results-area-" + box["number"] + "-line",
                ),
            ),
            class_name="results-area-list",
            id="results-areas-list",
        ),
        id="results-areas",
        aria_labelledby="results-areas-title",
    )


# --- The head of the page ------------------------------------------------------------------------------------------


def _filter_select(label: str, name: str, placeholder: str) -> rx.Component:
    return select_field(
        label,
        id=f"results-filter-{name.replace('_', '-')}",
        options=S.options[name],
        value=S.filters[name].to(str),
        on_change=lambda v: S.set_filter(name, v),
        native=True,
        placeholder=placeholder,
        error=S.errors[name].to(str),
        size="2",
    )


def _date(label: str, name: str) -> rx.Component:
    return text_field(
        label,
        id=f"results-filter-{name}",
        type="date",
        value=S.filters[name].to(str),
        on_change=lambda v: S.set_filter(name, v),
        debounce=800,
        error=S.errors[name].to(str),
        helper="A day in UTC.",
        size="2",
    )


def _filters() -> rx.Component:
    return _panel(
        rx.heading("Filters", size="4", as_="h2", id="results-filters-title"),
        rx.el.div(
            _filter_select("Seniority", "seniority", "Any seniority"),
            _filter_select("Country", "country", "Any country"),
            _filter_select("Company size", "company_size", "Any company size"),
            _filter_select("Version", "version", "Every version"),
            _date("Submitted from", "since"),
            _date("Submitted to", "until"),
            class_name="results-filter-grid",
        ),
        rx.hstack(
            rx.el.label(
                rx.checkbox(
                    checked=S.filters["excluded"].to(str) == "1",
                    on_change=lambda checked: S.set_filter("excluded", checked),
                    id="results-filter-excluded",
                    aria_labelledby="results-filter-excluded-label",
                ),
                rx.text(
                    "Include excluded and rejected reviews", as_="span", size="2", id="results-filter-excluded-label"
                ),
                class_name="results-check",
            ),
            rx.button(
                "Clear filters",
                variant="soft",
                color_scheme="gray",
                size="2",
                on_click=S.clear_filters,
                id="results-clear-filters",
            ),
            justify="between",
            align="center",
            wrap="wrap",
            spacing="3",
            width="100%",
        ),
        rx.text(
            rx.text.span("Showing: ", weight="medium"),
            S.applied,
            size="2",
            id="results-applied",
            aria_live="polite",
        ),
        id="results-filters",
        aria_labelledby="results-filters-title",
    )


def _overview() -> rx.Component:
    return _panel(
        rx.heading("Who took part", size="4", as_="h2", id="results-overview-title"),
        rx.text("The whole test, whatever the filters:", size="2", color=MUTED),
        _figures(S.funnel, "results-funnel", "The whole test"),
        rx.hstack(
            rx.text(S.reviews, size="3", weight="bold", id="results-reviews"),
            rx.cond(S.left_out != "", rx.text(S.left_out, size="2", color=MUTED, id="results-left-out")),
            align="baseline",
            spacing="3",
            wrap="wrap",
        ),
        rx.heading("Time taken", size="3", as_="h3"),
        _figures(S.timing, "results-timing", "Time taken"),
        _summary(S.timing_summary, "results-timing-summary"),
        id="results-overview",
        aria_labelledby="results-overview-title",
    )


def _toolbar() -> rx.Component:
    return rx.hstack(
        rx.text(
            "Updated ",
            rx.moment(date=S.updated, format="HH:mm:ss", interval=REFRESH_SECONDS * 1000, on_change=S.tick),
            size="2",
            color=MUTED,
            id="results-updated",
        ),
        rx.button(
            rx.icon("refresh-cw", size=14, aria_hidden="true"),
            "Refresh",
            variant="soft",
            size="2",
            on_click=S.refresh,
            id="results-refresh",
        ),
        rx.cond(
            StaffState.can[roles.EXPORT],
            rx.hstack(
                rx.button(
                    rx.icon("download", size=14, aria_hidden="true"),
                    "Download CSV",
                    size="2",
                    on_click=S.export_csv,
                    id="results-export-csv",
                ),
                rx.button(
                    rx.icon("download", size=14, aria_hidden="true"),
                    "Download Excel",
                    size="2",
                    on_click=S.export_excel,
                    id="results-export-xlsx",
                ),
                spacing="2",
                wrap="wrap",
            ),
        ),
        align="center",
        spacing="3",
        wrap="wrap",
    )


def _body() -> rx.Component:
    return rx.vstack(
        rx.hstack(
            rx.heading(S.name, size="5", as_="h2", id="results-test-name"),
            rx.spacer(),
            _toolbar(),
            align="center",
            wrap="wrap",
            spacing="3",
            width="100%",
        ),
        _overview(),
        _filters(),
        rx.cond(S.is_preference, _preference()),
        rx.cond(S.areas.length() > 0, _areas()),
        rx.cond(
            S.sections.length() > 0,
            rx.el.div(
                rx.heading(
                    rx.cond(S.is_preference, "The reasons given", "Questions"),
                    size="4",
                    as_="h2",
                    id="results-questions-title",
                ),
                rx.foreach(S.sections, _section),
                class_name="results-questions",
                id="results-questions",
            ),
        ),
        spacing="4",
        width="100%",
        id="results",
    )


@staff_page("/admin/tests/[test_id]/results", "Results", on_load=[S.load], permission=roles.VIEW)
def test_results_page() -> rx.Component:
    return admin_layout(
        test_tabs("results"),
        rx.cond(
            S.missing != "",
            rx.callout(S.missing, icon="triangle-alert", color_scheme="red", id="results-missing"),
            rx.cond(S.loaded, _body(), rx.center(rx.spinner(size="3"), padding="48px", aria_label="Loading")),
        ),
    )
