"""/admin/tests/[test_id]: the test's details and its common fields, edited with live messages; its schedule
(UTC), stop and resume, and what invitees earn beside the test's own payout."""

from __future__ import annotations

from typing import Any

import reflex as rx
from reflex.vars import ArrayVar

from portal.components.admin import admin_layout, confirm_dialog, status_badge
from portal.components.admin_pages import staff_page
from portal.components.admin_test import test_tabs
from portal.components.form import (
    checkbox_group_field,
    field_label,
    form_error,
    select_field,
    text_field,
    textarea_field,
)
from portal.domain.reference_data import TEST_SENIORITY_KEYS
from portal.domain.staff import roles
from portal.domain.staff.editing import EXCLUSION_LABELS, PANEL_LABELS, PAYOUT_HINT, SESSION_LABELS, WELCOME_PARTS
from portal.states.admin.editing import TestEditState as S
from portal.states.admin.guard import StaffState


def _id(key: str) -> str:
    return "edit-" + key.replace(".", "-")


def _bound(key: str) -> dict[str, Any]:
    """A field of the form: its value, its change (kept in the form until Save) and its live message."""
    return {
        "id": _id(key),
        "value": S.form.get(key, ""),
        "on_change": lambda v: S.set_field(key, v),
        "error": S.problems.get(key, ""),
        "size": "2",
    }


def _text(label: str, key: str, hint: str | None = None, **props: Any) -> rx.Component:
    return text_field(label, helper=hint, debounce=300, **_bound(key), **props)


def _area(label: str, key: str, hint: str | None = None, rows: str = "3", **props: Any) -> rx.Component:
    return textarea_field(label, helper=hint, rows=rows, debounce=400, **_bound(key), **props)


def _select(
    label: str, key: str, options: list[tuple[str, str]] | ArrayVar[Any], hint: str | None = None
) -> rx.Component:
    return select_field(label, options=options, helper=hint, **_bound(key))


def _section(title: str, *children: rx.Component, section_id: str) -> rx.Component:
    return rx.box(
        rx.heading(title, size="3", as_="h2", margin_bottom="12px"),
        rx.vstack(*children, spacing="4", width="100%"),
        class_name="admin-panel",
        id=section_id,
        width="100%",
    )


def _qualifications() -> rx.Component:
    return checkbox_group_field(
        "Qualifications",
        id="edit-qualifications",
        options=S.qualification_options,
        checked=S.form.get("qualifications", "").to(str).split("\n"),
        on_toggle=S.toggle_qualification,
        item=lambda name: (name, name),
        row=True,
        empty="No qualifications exist yet.",
        error=S.problems.get("qualifications", ""),
    )


def _schedule() -> rx.Component:
    """When a scheduled test starts: a date and a time, in UTC (shown only while 'Scheduled' is chosen)."""
    return rx.cond(
        S.form.get("status", "") == "scheduled",
        rx.el.fieldset(
            field_label("Starts at (UTC)", tag="legend"),
            rx.grid(
                _text("Date (UTC)", "scheduled.date", "The day in UTC.", type="date"),
                _text("Time (UTC)", "scheduled.time", "In UTC, not your local time.", type="time"),
                columns=rx.breakpoints(initial="1", sm="2"),
                spacing="4",
                width="100%",
            ),
            rx.text(
                "The test starts running at this time by itself (the launch job runs every 30 seconds).",
                size="1",
                color="var(--gray-11)",
            ),
            class_name="portal-fieldset",
            id="edit-schedule",
        ),
    )


def _rates() -> rx.Component:
    """What invitees earn by the incentive table (seniority and day), beside the test's own payout."""
    cell = {"padding": "4px 12px 4px 0", "text_align": "left"}
    return rx.box(
        rx.text("Invitees earn (incentive table, ", S.rates_row, ")", size="2", weight="medium"),
        rx.el.table(
            rx.el.thead(
                rx.el.tr(
                    rx.el.th("Seniority", scope="col", style=cell),
                    rx.el.th("Day 1", scope="col", style=cell),
                    rx.el.th("Day 2 on", scope="col", style=cell),
                )
            ),
            rx.el.tbody(
                rx.foreach(
                    S.rates,
                    lambda r: rx.el.tr(
                        rx.el.th(r[0], scope="row", style={**cell, "font_weight": "normal"}),
                        rx.el.td(r[1], style=cell),
                        rx.el.td(r[2], style=cell),
                    ),
                )
            ),
            style={"font_size": "var(--font-size-2)", "border_collapse": "collapse"},
            id="edit-rates",
        ),
        rx.text(
            "Day 1 is the first 24 hours after launch. Founders earn as middle; custom and no level as specialist. "
            "A batch of invites may override the amount.",
            size="1",
            color="var(--gray-11)",
        ),
        rx.cond(
            S.payout_note != "",
            rx.callout(S.payout_note, icon="info", color_scheme="amber", size="1", id="edit-payout-note"),
        ),
        class_name="admin-rates",
        width="100%",
    )


def _form() -> rx.Component:
    seniority = rx.el.fieldset(
        field_label("Places per seniority level (empty: no separate limit)", tag="legend"),
        rx.grid(
            *[_text(key.capitalize(), f"seniority.{key}", input_mode="numeric") for key in TEST_SENIORITY_KEYS],
            columns=rx.breakpoints(initial="2", sm="5"),
            spacing="3",
            width="100%",
        ),
        class_name="portal-fieldset",
    )
    return rx.vstack(
        _section(
            "Basics",
            _text("Name", "name", "Names identify tests when a JSON file is imported.", max_length=200),
            rx.grid(
                _select(
                    "Status",
                    "status",
                    S.status_options,
                    "Only the changes that make sense from the current status are offered.",
                ),
                _select("Duration", "session", [(str(k), v) for k, v in SESSION_LABELS.items()]),
                _text("Payout (USD)", "payout", PAYOUT_HINT, input_mode="decimal"),
                columns=rx.breakpoints(initial="1", sm="3"),
                spacing="4",
                width="100%",
            ),
            _schedule(),
            _rates(),
            section_id="edit-basics",
        ),
        _section(
            "Audience and quotas",
            rx.grid(
                _select("Panel", "panel", list(PANEL_LABELS.items())),
                _select("Audience country", "country", S.countries),
                _select("Participant quota", "limit", S.limit_options, "How many people take the test in all."),
                _select(
                    "Exclusion window",
                    "exclusion",
                    [(str(k), v) for k, v in EXCLUSION_LABELS.items()],
                    "People who took a test within it are not invited.",
                ),
                columns=rx.breakpoints(initial="1", sm="2", md="4"),
                spacing="4",
                width="100%",
            ),
            seniority,
            _qualifications(),
            section_id="edit-audience",
        ),
        _section(
            "What participants read",
            _area("Frame of mind", "frame", "Shown before the test: who to imagine being.", rows="3"),
            rx.grid(
                *[_text(f"Welcome modal: {part}", f"welcome.{part}") for part in WELCOME_PARTS if part != "body"],
                columns=rx.breakpoints(initial="1", sm="2"),
                spacing="4",
                width="100%",
            ),
            _area("Welcome modal: body", "welcome.body", rows="3"),
            rx.text(
                "The screener, the questions and the pages are built on the ",
                rx.el.a("Build tab", href="/admin/tests/" + S.test_id + "/build", id="edit-build-link"),
                ".",
                size="2",
                color="var(--gray-11)",
            ),
            section_id="edit-content",
        ),
        form_error(S.problems.get("", ""), id="edit-other-error"),
        _content(),
        rx.hstack(
            rx.cond(S.dirty, rx.text("Unsaved changes", size="2", color="var(--amber-11)", id="edit-dirty")),
            rx.spacer(),
            rx.button(
                "Discard changes",
                variant="soft",
                color_scheme="gray",
                on_click=S.discard,
                disabled=~S.dirty,
                id="edit-discard",
            ),
            rx.button(
                "Save",
                on_click=S.save,
                loading=S.saving,
                id="edit-save",
                disabled=~S.dirty | (S.problems.length() > 0) | ~StaffState.can[roles.MANAGE_TESTS],
            ),
            width="100%",
            align="center",
            spacing="3",
            wrap="wrap",
        ),
        spacing="4",
        width="100%",
    )


def _content() -> rx.Component:
    """The definition's problems outside this form: a draft is saved with them, and stays a draft until the
    builder fixes them."""
    return rx.cond(
        S.content.length() > 0,
        rx.callout(
            rx.vstack(
                rx.text(
                    "The test's content is not complete yet: it can be saved as a draft, and launched or scheduled "
                    "once these are fixed.",
                    size="2",
                ),
                rx.el.ul(
                    rx.foreach(
                        S.content, lambda p: rx.el.li(rx.text(p, size="1", font_family="var(--code-font-family)"))
                    ),
                    class_name="admin-problem-list",
                ),
                spacing="1",
            ),
            icon="list-todo",
            color_scheme="gray",
            id="edit-content-problems",
            width="100%",
        ),
    )


def _stop_resume() -> rx.Component:
    return rx.cond(
        (S.status == "running") | (S.status == "stopped"),
        rx.button(
            rx.cond(S.status == "running", rx.icon("circle-pause", size=16), rx.icon("circle-play", size=16)),
            rx.cond(S.status == "running", "Stop test", "Resume test"),
            variant="soft",
            size="2",
            color_scheme=rx.cond(S.status == "running", "amber", "green"),
            on_click=S.stop_or_resume,
            loading=S.moving,
            disabled=S.dirty | ~StaffState.can[roles.MANAGE_TESTS],
            id="edit-stop-resume",
        ),
    )


@staff_page("/admin/tests/[test_id]", "Test", on_load=[S.load_page])
def test_edit_page() -> rx.Component:
    summary = rx.hstack(
        rx.text(S.kind.capitalize(), " · ", S.product_type, size="2", color="var(--gray-11)", id="edit-kind"),
        rx.box(status_badge(S.status_label), id="edit-status-badge"),
        rx.cond(S.scheduled != "", rx.text("Starts ", S.scheduled, size="2", id="edit-scheduled-at")),
        rx.spacer(),
        _stop_resume(),
        rx.button(
            rx.icon("download", size=16),
            "Export JSON",
            variant="soft",
            size="2",
            on_click=S.export,
            id="edit-export",
            disabled=~StaffState.can[roles.MANAGE_TESTS],
        ),
        rx.link(
            rx.button(rx.icon("eye", size=16), "Preview", variant="soft", size="2"),
            href="/admin/tests/" + S.test_id + "/preview",
        ),
        align="center",
        width="100%",
        wrap="wrap",
        spacing="3",
    )
    return admin_layout(
        test_tabs("details"),
        rx.cond(
            S.test_id != "",
            rx.vstack(
                rx.heading(S.name, size="5", as_="h2", id="edit-test-name"),
                summary,
                rx.cond(
                    ~StaffState.can[roles.MANAGE_TESTS],
                    rx.callout("Your role can look at this test but not change it.", icon="lock", color_scheme="gray"),
                ),
                _form(),
                confirm_dialog(
                    S.version_warning != "",
                    "Save as a new version?",
                    S.version_warning,
                    "Save as version " + (S.version_in_use + 1).to_string(),
                    S.save_new_version,
                    S.keep_editing,
                    "edit-new-version",
                    dismiss_label="Keep editing",
                ),
                spacing="4",
                width="100%",
            ),
            rx.center(rx.spinner(size="3"), padding="48px"),
        ),
    )
