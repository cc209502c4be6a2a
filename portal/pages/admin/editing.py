"""/admin/tests/[test_id]: the test's details and its common fields, edited with live messages."""

from __future__ import annotations

from typing import Any

import reflex as rx

from portal.components.admin_pages import staff_page
from portal.components.admin import admin_layout, status_badge
from portal.components.admin_test import test_tabs
from portal.domain.reference_data import TEST_SENIORITY_KEYS
from portal.domain.staff import roles
from portal.domain.staff.editing import PANEL_LABELS, SESSION_LABELS, WELCOME_PARTS
from portal.states.admin.guard import StaffState
from portal.states.admin.editing import TestEditState as S

LABEL_STYLE = {"fontSize": "14px", "fontWeight": 500, "color": "var(--gray-12)"}


def _id(key: str) -> str:
    return "edit-" + key.replace(".", "-")


def _field(label: str, key: str, control: rx.Component, hint: str = "") -> rx.Component:
    """A labelled control with its hint and its live message."""
    error = S.problems.get(key, "")
    return rx.vstack(
        rx.el.label(label, html_for=_id(key), style=LABEL_STYLE),
        control,
        rx.cond(hint != "", rx.text(hint, size="1", color="var(--gray-11)")) if hint else rx.fragment(),
        rx.cond(error != "", rx.text(error, color="var(--red-11)", size="2", id=_id(key) + "-error", role="alert")),
        spacing="1", width="100%", align="stretch",
    )


def _text(label: str, key: str, hint: str = "", **props: Any) -> rx.Component:
    error = S.problems.get(key, "")
    return _field(label, key, rx.debounce_input(
        rx.input(id=_id(key), value=S.form.get(key, ""), on_change=lambda v: S.set_field(key, v), size="2", width="100%",
                 aria_invalid=rx.cond(error != "", "true", "false"), aria_describedby=_id(key) + "-error", **props),
        debounce_timeout=300,
    ), hint)


def _area(label: str, key: str, hint: str = "", rows: str = "3", **props: Any) -> rx.Component:
    return _field(label, key, rx.debounce_input(
        rx.text_area(id=_id(key), value=S.form.get(key, ""), on_change=lambda v: S.set_field(key, v), rows=rows, width="100%",
                     aria_describedby=_id(key) + "-error", **props),
        debounce_timeout=400,
    ), hint)


def _select(label: str, key: str, options: list[tuple[str, str]] | rx.Var, hint: str = "") -> rx.Component:
    items = ([rx.select.item(text, value=value) for value, text in options] if isinstance(options, list)
             else [rx.foreach(options, lambda o: rx.select.item(o[1], value=o[0]))])
    return _field(label, key, rx.select.root(
        rx.select.trigger(id=_id(key), width="100%", aria_label=label),
        rx.select.content(*items),
        value=S.form.get(key, ""), on_change=lambda v: S.set_field(key, v), size="2",
    ), hint)


def _section(title: str, *children: rx.Component, section_id: str) -> rx.Component:
    return rx.box(
        rx.heading(title, size="3", as_="h2", margin_bottom="12px"),
        rx.vstack(*children, spacing="4", width="100%"),
        class_name="admin-panel", id=section_id, width="100%",
    )


def _qualifications() -> rx.Component:
    chosen = S.form.get("qualifications", "").to(str).split("\n")
    return rx.el.fieldset(
        rx.el.legend("Qualifications", style=LABEL_STYLE),
        rx.cond(S.qualification_options.length() == 0, rx.text("No qualifications exist yet.", size="2", color="var(--gray-11)")),
        rx.flex(
            rx.foreach(S.qualification_options, lambda name: rx.el.label(
                rx.checkbox(checked=chosen.contains(name), on_change=lambda _v: S.toggle_qualification(name)),
                rx.text(name, size="2"), class_name="admin-check",
            )),
            wrap="wrap", gap="3",
        ),
        rx.cond(S.problems.get("qualifications", "") != "",
                rx.text(S.problems.get("qualifications", ""), color="var(--red-11)", size="2", id="edit-qualifications-error", role="alert")),
        class_name="admin-fieldset",
    )


def _form() -> rx.Component:
    seniority = rx.el.fieldset(
        rx.el.legend("Places per seniority level (empty: no separate limit)", style=LABEL_STYLE),
        rx.grid(*[_text(key.capitalize(), f"seniority.{key}", input_mode="numeric") for key in TEST_SENIORITY_KEYS],
                columns=rx.breakpoints(initial="2", sm="5"), spacing="3", width="100%"),
        class_name="admin-fieldset",
    )
    return rx.vstack(
        _section(
            "Basics",
            _text("Name", "name", "Names identify tests when a JSON file is imported.", max_length=200),
            rx.grid(
                _select("Status", "status", S.status_options, "Only the changes that make sense from the current status are offered."),
                _select("Session length", "session", [(str(k), v) for k, v in SESSION_LABELS.items()]),
                _text("Payout (USD)", "payout", "What a participant earns for an approved review.", input_mode="decimal"),
                columns=rx.breakpoints(initial="1", sm="3"), spacing="4", width="100%",
            ),
            section_id="edit-basics",
        ),
        _section(
            "Audience and quotas",
            rx.grid(
                _select("Panel", "panel", list(PANEL_LABELS.items())),
                _select("Audience country", "country", S.countries),
                _text("Participant limit", "limit", "Empty: no limit.", input_mode="numeric"),
                columns=rx.breakpoints(initial="1", sm="3"), spacing="4", width="100%",
            ),
            seniority,
            _qualifications(),
            section_id="edit-audience",
        ),
        _section(
            "What participants read",
            _area("Frame of mind", "frame", "Shown before the test: who to imagine being.", rows="3"),
            rx.grid(*[_text(f"Welcome modal: {part}", f"welcome.{part}") for part in WELCOME_PARTS if part != "body"],
                    columns=rx.breakpoints(initial="1", sm="2"), spacing="4", width="100%"),
            _area("Welcome modal: body", "welcome.body", rows="3"),
            _area("Screener question (JSON)", "screener",
                  "Empty: no screener. The format is in docs/test-format.md (screenerQuestion).", rows="8",
                  font_family="var(--code-font-family)"),
            section_id="edit-content",
        ),
        rx.cond(S.problems.get("", "") != "", rx.callout(S.problems.get("", ""), icon="triangle-alert", color_scheme="red",
                                                           id="edit-other-error")),
        rx.hstack(
            rx.cond(S.dirty, rx.text("Unsaved changes", size="2", color="var(--amber-11)", id="edit-dirty")),
            rx.spacer(),
            rx.button("Discard changes", variant="soft", color_scheme="gray", on_click=S.discard, disabled=~S.dirty, id="edit-discard"),
            rx.button("Save", on_click=S.save, loading=S.saving, id="edit-save",
                      disabled=~S.dirty | (S.problems.length() > 0) | ~StaffState.can[roles.MANAGE_TESTS]),
            width="100%", align="center", spacing="3", wrap="wrap",
        ),
        spacing="4", width="100%",
    )


@staff_page('/admin/tests/[test_id]', 'Test', on_load=[S.load_page])
def test_edit_page() -> rx.Component:
    summary = rx.hstack(
        rx.text(S.kind.capitalize(), " · ", S.product_type, size="2", color="var(--gray-11)", id="edit-kind"),
        rx.box(status_badge(S.status_label), id="edit-status-badge"),
        rx.spacer(),
        rx.button(rx.icon("download", size=16), "Export JSON", variant="soft", size="2", on_click=S.export, id="edit-export",
                  disabled=~StaffState.can[roles.MANAGE_TESTS]),
        rx.link(rx.button(rx.icon("eye", size=16), "Preview", variant="soft", size="2"), href="/admin/tests/" + S.test_id + "/preview"),
        align="center", width="100%", wrap="wrap", spacing="3",
    )
    return admin_layout(
        test_tabs("details"),
        rx.cond(S.test_id != "", rx.vstack(
            rx.heading(S.name, size="5", as_="h2", id="edit-test-name"),
            summary,
            rx.cond(~StaffState.can[roles.MANAGE_TESTS],
                    rx.callout("Your role can look at this test but not change it.", icon="lock", color_scheme="gray")),
            _form(),
            spacing="4", width="100%",
        ), rx.center(rx.spinner(size="3"), padding="48px")),
    )

