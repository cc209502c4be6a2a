"""/admin/tests/[test_id]/versions: every version of a test's definition, and what changed between two."""

from __future__ import annotations

from typing import Any

import reflex as rx

from portal.components.admin import admin_layout
from portal.components.admin_pages import staff_page
from portal.components.admin_test import test_tabs
from portal.components.form import select_field
from portal.states.admin.versions import TestVersionsState as S

HEADERS = ("Version", "Saved", "By", "From", "Taking it now", "Submitted", "State")


def _row(row: Any) -> rx.Component:
    return rx.el.tr(
        rx.el.th(rx.text("Version ", row["number"], weight="medium", size="2"), scope="row"),
        rx.el.td(row["created"]),
        rx.el.td(row["by"]),
        rx.el.td(row["source"]),
        rx.el.td(row["in_progress"]),
        rx.el.td(row["done"]),
        rx.el.td(
            rx.badge(
                row["state"],
                color_scheme=rx.cond(row["state"] == "In use", "green", "gray"),
                variant="soft",
                high_contrast=True,
            )
        ),
        id="version-" + row["number"],
    )


def _versions() -> rx.Component:
    """A plain table in a scroll box that the keyboard can reach (it scrolls sideways on a phone)."""
    return rx.box(
        rx.el.table(
            rx.el.thead(rx.el.tr(*[rx.el.th(h, scope="col") for h in HEADERS])),
            rx.el.tbody(rx.foreach(S.rows, _row)),
            class_name="versions-table",
            id="versions-table",
        ),
        class_name="versions-scroll",
        tab_index=0,
        role="region",
        aria_label="Versions of this test",
        width="100%",
    )


def _change(change: Any) -> rx.Component:
    return rx.box(
        rx.hstack(
            rx.badge(
                change["kind"],
                color_scheme=rx.match(change["kind"], ("added", "green"), ("removed", "red"), "amber"),
                variant="soft",
                high_contrast=True,
            ),
            rx.code(change["path"], size="2", variant="ghost", word_break="break-all"),
            spacing="2",
            align="center",
            wrap="wrap",
        ),
        rx.cond(
            change["was"] != "",
            rx.text(rx.text.span("Was: ", weight="medium"), change["was"], size="2", class_name="version-was"),
        ),
        rx.cond(
            change["now"] != "",
            rx.text(rx.text.span("Now: ", weight="medium"), change["now"], size="2", class_name="version-now"),
        ),
        padding="10px 12px",
        border_bottom="1px solid var(--gray-5)",
        width="100%",
        white_space="pre-wrap",
        overflow_wrap="anywhere",
    )


def _compare() -> rx.Component:
    return rx.vstack(
        rx.heading("What changed", size="3", as_="h2"),
        rx.hstack(
            select_field(
                "From",
                options=S.choices,
                value=S.before,
                on_change=lambda v: S.choose("before", v),
                id="versions-before",
            ),
            select_field(
                "To", options=S.choices, value=S.after, on_change=lambda v: S.choose("after", v), id="versions-after"
            ),
            spacing="4",
            wrap="wrap",
        ),
        rx.cond(
            S.compared & (S.changes.length() == 0),
            rx.text("No difference between these two versions.", size="2", id="versions-same"),
        ),
        rx.cond(
            S.changes.length() > 0,
            rx.box(
                rx.foreach(S.changes, _change),
                border="1px solid var(--gray-6)",
                border_radius="var(--radius-3)",
                width="100%",
                id="versions-changes",
            ),
        ),
        spacing="3",
        width="100%",
    )


@staff_page("/admin/tests/[test_id]/versions", "Test versions", on_load=[S.load])
def test_versions_page() -> rx.Component:
    return admin_layout(
        test_tabs("versions"),
        rx.cond(
            S.missing != "",
            rx.callout(S.missing, icon="triangle-alert", color_scheme="red", id="versions-missing"),
            rx.cond(
                S.loaded,
                rx.vstack(
                    rx.heading(S.name, size="5", as_="h2", id="versions-test-name"),
                    rx.text(
                        "Each version is what participants were asked. A version is in use once someone starts on "
                        "it and never changes after that: an edit makes the next version. Reviews are shown and "
                        "exported with the questions of the version they were given on.",
                        size="2",
                        color="var(--gray-11)",
                    ),
                    _versions(),
                    rx.cond(S.rows.length() > 1, _compare()),
                    spacing="4",
                    width="100%",
                ),
                rx.center(rx.spinner(size="3"), padding="48px"),
            ),
        ),
    )
