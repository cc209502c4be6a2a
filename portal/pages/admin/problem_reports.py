"""/admin/reports (issue 38): what participants reported while taking tests, and the tests their reports paused."""

from __future__ import annotations

from typing import Any

import reflex as rx

from portal.components.admin import admin_layout, confirm_dialog
from portal.components.admin_pages import staff_page
from portal.domain.staff import roles
from portal.states.admin.guard import StaffState
from portal.states.admin.problem_reports import AdminReportsState as R

MUTED = "var(--gray-11)"


def _paused(test: Any) -> rx.Component:
    return rx.card(
        rx.hstack(
            rx.vstack(
                rx.text(test["name"], weight="bold"),
                rx.text("Paused since ", test["since"], " · ", test["reporters"], " reporters", size="2", color=MUTED),
                spacing="1",
            ),
            rx.spacer(),
            rx.cond(
                StaffState.can[roles.MANAGE_TESTS],
                rx.hstack(
                    rx.button("Resume", on_click=R.resume(test["id"]), size="2", id="resume-" + test["id"]),
                    rx.button(
                        "Close and pay reporters",
                        on_click=R.ask_close(test["id"]),
                        size="2",
                        variant="soft",
                        color_scheme="red",
                        id="close-" + test["id"],
                    ),
                    spacing="2",
                ),
            ),
            align="center",
            wrap="wrap",
            width="100%",
        ),
        width="100%",
        data_test=test["id"],
        class_name="paused-test",
    )


def _row(report: Any) -> rx.Component:
    return rx.el.tr(
        rx.el.td(rx.hstack(rx.cond(report["new"] != "", rx.badge("New", color_scheme="indigo")), report["when"])),
        rx.el.td(rx.link(report["test"], href="/admin/reports?test=" + report["test_id"]), style={"minWidth": "180px"}),
        rx.el.td(report["category"]),
        rx.el.td(rx.text(report["text"], white_space="pre-wrap", size="2"), style={"minWidth": "260px"}),
        rx.el.td(report["who"]),
        rx.el.td(report["handled"]),
        data_report=report["id"],
    )


@staff_page("/admin/reports", "Problem reports", on_load=[R.load_page], menu="Reports")
def reports_page() -> rx.Component:
    return admin_layout(
        rx.vstack(
            rx.text(
                "What participants reported while taking a test. A test pauses itself when enough different people "
                "report a problem: nobody can submit, open sessions keep their answers and their time stops until it "
                "is resumed or closed.",
                size="2",
                color=MUTED,
            ),
            rx.cond(
                R.paused.length() > 0,
                rx.vstack(
                    rx.heading("Paused tests", size="4", as_="h2"),
                    rx.foreach(R.paused, _paused),
                    spacing="3",
                    width="100%",
                    id="paused-tests",
                ),
            ),
            rx.hstack(
                rx.heading("Reports", size="4", as_="h2"),
                rx.cond(R.test_filter != "", rx.link("All tests", href="/admin/reports", size="2")),
                rx.spacer(),
                rx.button("Refresh", on_click=R.refresh, variant="soft", size="2", id="reports-refresh"),
                align="center",
                width="100%",
            ),
            rx.cond(
                R.reports.length() > 0,
                rx.box(
                    rx.el.table(
                        rx.el.thead(
                            rx.el.tr(
                                *(
                                    rx.el.th(name, scope="col")
                                    for name in ("When", "Test", "Problem", "What they wrote", "Who", "Outcome")
                                )
                            )
                        ),
                        rx.el.tbody(rx.foreach(R.reports, _row)),
                        id="reports-table",
                        class_name="results-table",
                    ),
                    class_name="results-scroll",
                    tab_index=0,
                    role="region",
                    aria_label="Problem reports",
                ),
                rx.text("No problems reported.", size="2", id="reports-empty"),
            ),
            spacing="4",
            width="100%",
        ),
        confirm_dialog(
            R.closing_id != "",
            rx.text("Close ", R.closing_name, "?"),
            "Nobody can take it any more. Each participant who reported a problem is paid for the share of the test's "
            "time they had used when it paused.",
            "Close and pay",
            R.confirm_close,
            R.cancel_close,
            "close-confirm",
            color="red",
        ),
    )
