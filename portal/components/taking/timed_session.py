"""The timed session's pieces every kind shows: the countdown, the browser bridge, the timeout modal.

Each takes the kind's state class (one with the TimedSession mixin). The countdown is drawn each
second by window.portalTaking (assets/portal.js) from the server deadline.
"""

from __future__ import annotations

import reflex as rx

from portal.components.form.actions import form
from portal.components.form.inputs import select_field, textarea_field
from portal.domain import problem_reports as problem_rules
from portal.domain.taking import access


def save_status() -> rx.Component:
    """'Saving…' while an answer waits for the server's confirmation longer than usual, then 'All
    answers saved' (written by window.portalTaking; empty while saves are quick)."""
    return rx.el.span(
        id="taking-save-status",
        role="status",
        aria_live="polite",
        class_name="taking-save-status",
        style={
            "fontSize": "var(--font-size-2)",
            "color": "var(--gray-11)",
            "marginRight": "12px",
            "alignSelf": "center",
        },
    )


def timer(S) -> rx.Component:
    """The save status, 'Report a problem' and the countdown (drawn each second by window.portalTaking from the
    server deadline): every step of every kind where the time runs shows them."""
    return rx.hstack(save_status(), report_problem(S), _countdown(S), align="center", spacing="0")


def report_problem(S) -> rx.Component:
    """'Report a problem' (issue 38): the button, and its dialog with a category and a text."""
    button = rx.button(
        rx.icon("flag", size=14),
        rx.el.span(problem_rules.BUTTON, class_name="report-problem-label"),  # the flag alone on a phone
        aria_label=problem_rules.BUTTON,
        variant="ghost",
        color_scheme="gray",
        size="1",
        on_click=S.open_report,
        id="report-problem",
        type="button",
        margin_right="12px",
    )
    return rx.fragment(button, _report_dialog(S))


def _report_dialog(S) -> rx.Component:
    return rx.dialog.root(
        rx.dialog.content(
            rx.dialog.title(problem_rules.TITLE),
            rx.dialog.description(problem_rules.INTRO, size="2"),
            form(
                select_field(
                    "What kind of problem?",
                    id="report-category",
                    options=[(c.key, c.label) for c in problem_rules.CATEGORIES],
                    name="category",
                    native=True,
                    placeholder="Choose one",
                    default_value="",
                    error=S.report_errors.get("category", ""),
                ),
                textarea_field(
                    "What happened?",
                    id="report-text",
                    name="text",
                    rows="4",
                    max_length=problem_rules.TEXT_MAX,
                    error=S.report_errors.get("text", ""),
                ),
                rx.hstack(
                    rx.button("Cancel", type="button", variant="soft", color_scheme="gray", on_click=S.close_report),
                    rx.button("Send report", type="submit", id="report-send"),
                    justify="end",
                    spacing="3",
                    width="100%",
                ),
                on_submit=S.report_problem,
                id="report-form",
            ),
            max_width="480px",
        ),
        open=S.report_open,
        on_open_change=lambda _open: S.close_report(),
    )


def _countdown(S) -> rx.Component:
    return rx.hstack(
        rx.icon("timer", size=16),
        rx.el.span(id="taking-timer-text", aria_live="off"),
        id="taking-timer",
        data_test_id=S.test_id.to_string(),
        data_store=S.store_key,
        data_deadline=S.deadline_ms.to_string(),
        data_clock=S.clock_ms.to_string(),
        data_seconds=S.session_seconds.to_string(),
        data_can_extend=rx.cond(S.extensions < access.MAX_EXTENSIONS, "true", "false"),
        data_mid=str(access.MID_WARNING_SECONDS),
        data_warn=S.warn_seconds.to_string(),
        align="center",
        spacing="1",
        class_name="taking-timer",
        aria_label="Time left",
    )


def bridge(S) -> rx.Component:
    """Where window.portalTaking reports timer thresholds, tab focus, other tabs' saves and pastes."""
    return rx.el.input(
        id="taking-bridge",
        type="text",
        aria_hidden="true",
        tab_index=-1,
        style={"display": "none"},
        on_change=S.bridge,
    )


def timeout_modal(S) -> rx.Component:
    return rx.alert_dialog.root(
        rx.alert_dialog.content(
            rx.alert_dialog.title(access.TIMEOUT_MODAL_TITLE),
            rx.alert_dialog.description(
                "Your time is almost up. Responses won't be accepted after the time is up. "
                "You can extend your time once by 10 minutes."
            ),
            rx.hstack(
                rx.alert_dialog.cancel(
                    rx.button(
                        "Close", variant="soft", color_scheme="gray", on_click=S.close_timeout, id="timeout-close"
                    )
                ),
                rx.alert_dialog.action(rx.button("Extend time", on_click=S.extend_time, id="timeout-extend")),
                spacing="3",
                justify="end",
                margin_top="16px",
            ),
            max_width="440px",
        ),
        open=S.timeout_open,
    )
