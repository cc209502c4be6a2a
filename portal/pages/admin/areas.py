"""/admin/tests/[test_id]/areas: draw, move, resize, reorder and delete a highlight test's areas on its
screenshot, and edit each area's questions; live messages from the import's rules, saved after a
server re-check."""

from __future__ import annotations

import reflex as rx
from reflex.vars import StringVar

from portal.components.admin import admin_layout, confirm_dialog
from portal.components.admin_pages import staff_page
from portal.components.admin_test import test_tabs
from portal.components.area_editor import area_editor
from portal.components.form import checkbox_field, select_field, textarea_field
from portal.domain import highlight_areas as rules
from portal.domain.staff import roles
from portal.states.admin.areas import AreaRow, QuestionRow
from portal.states.admin.areas import AreasEditorState as S
from portal.states.admin.guard import StaffState

CAN_EDIT = StaffState.can[roles.MANAGE_TESTS]
_STEP = f"{rules.KEY_STEP:g}%"
HELP = (
    "Drag on the screenshot to draw an area (or use 'Add an area'). Drag an area to move it; drag a corner of the "
    "selected area to resize it.",
    f"Keyboard: Tab to an area to select it. Arrow keys move it by {_STEP}; Shift + Right/Left arrow makes it wider or "
    f"narrower and Shift + Down/Up arrow taller or shorter, by {_STEP}.",
    "Areas are stored as percent of the screenshot, in the order participants see them.",
)


def _field_id(area: int, question: int, name: str) -> StringVar:
    """The id of a question's field; `area` and `question` are row fields (Vars of numbers, see pyproject.toml)."""
    return "area-" + area.to_string() + "-question-" + question.to_string() + "-" + name


def _question(area: AreaRow, q: QuestionRow) -> rx.Component:
    text_id = _field_id(area.index, q.index, "text")
    type_id = _field_id(area.index, q.index, "type")
    return rx.box(
        rx.hstack(
            rx.text("Question ", q.index + 1, size="2", weight="medium"),
            rx.code(q.key, size="1", variant="ghost"),
            rx.spacer(),
            rx.icon_button(
                rx.icon("trash-2", size=14),
                size="1",
                variant="ghost",
                color_scheme="red",
                on_click=S.remove_question(area.index, q.index),
                disabled=~CAN_EDIT,
                aria_label="Remove question " + (q.index + 1).to_string() + " of area " + area.number.to_string(),
                id=_field_id(area.index, q.index, "remove"),
            ),
            align="center",
            width="100%",
            spacing="2",
        ),
        rx.cond(
            q.has_text,
            textarea_field(
                "Question text",
                id=text_id,
                value=q.text,
                debounce=500,  # one event when typing pauses
                on_change=lambda v: S.set_question_text(area.index, q.index, v),
                rows="2",
                size="2",
                disabled=~CAN_EDIT,
                placeholder="What should participants answer?",
            ),
            rx.text("The wording of this question is set by importing the test.", size="1", color="var(--gray-11)"),
        ),
        rx.flex(
            rx.cond(
                q.text_type,
                select_field(
                    "Type",
                    id=type_id,
                    options=list(rules.EDITOR_TYPES.items()),
                    value=q.type,
                    size="2",
                    disabled=~CAN_EDIT,
                    width="auto",
                    field_style={"width": "auto"},
                    on_change=lambda v: S.set_question_type(area.index, q.index, v),
                ),
                rx.badge(q.type_label, variant="soft", color_scheme="gray"),
            ),
            checkbox_field(
                "Required",
                id=_field_id(area.index, q.index, "required"),
                checked=q.required,
                on_change=lambda v: S.set_question_required(area.index, q.index, v),
                disabled=~CAN_EDIT,
                field_style={"width": "auto"},
            ),
            gap="16px",
            align="end",
            wrap="wrap",
        ),
        class_name="area-question",
        style={
            "borderTop": "1px solid var(--gray-5)",
            "paddingTop": "10px",
            "display": "flex",
            "flexDirection": "column",
            "gap": "8px",
            "width": "100%",
        },
    )


def _area_card(area: AreaRow) -> rx.Component:
    chosen = S.selected == area.index
    name = "area " + area.number.to_string()
    return rx.card(
        rx.vstack(
            rx.hstack(
                rx.el.button(
                    rx.heading("Area ", area.number, size="3", as_="h3"),
                    on_click=S.select_area(area.index),
                    class_name="area-card-title",
                    aria_pressed=rx.cond(chosen, "true", "false"),
                    style={
                        "background": "none",
                        "border": "none",
                        "padding": "0",
                        "cursor": "pointer",
                        "color": "inherit",
                    },
                ),
                rx.spacer(),
                rx.icon_button(
                    rx.icon("arrow-up", size=16),
                    size="1",
                    variant="soft",
                    on_click=S.move_area(area.index, -1),
                    disabled=(area.index == 0) | ~CAN_EDIT,
                    aria_label="Move " + name + " up",
                    id="area-" + area.index.to_string() + "-up",
                ),
                rx.icon_button(
                    rx.icon("arrow-down", size=16),
                    size="1",
                    variant="soft",
                    on_click=S.move_area(area.index, 1),
                    disabled=(area.index == S.areas.length() - 1) | ~CAN_EDIT,
                    aria_label="Move " + name + " down",
                    id="area-" + area.index.to_string() + "-down",
                ),
                rx.icon_button(
                    rx.icon("trash-2", size=16),
                    size="1",
                    variant="soft",
                    color_scheme="red",
                    on_click=S.delete_area(area.index),
                    disabled=~CAN_EDIT,
                    aria_label="Delete " + name,
                    id="area-" + area.index.to_string() + "-delete",
                ),
                align="center",
                width="100%",
                spacing="2",
            ),
            rx.text(area.place, size="1", color="var(--gray-11)", id="area-" + area.index.to_string() + "-place"),
            rx.foreach(area.questions, lambda q: _question(area, q)),
            rx.button(
                rx.icon("plus", size=14),
                "Add a text question",
                size="1",
                variant="soft",
                on_click=S.add_question(area.index),
                disabled=~CAN_EDIT,
                id="area-" + area.index.to_string() + "-add-question",
            ),
            spacing="3",
            width="100%",
            align="start",
        ),
        id="area-card-" + area.index.to_string(),
        style=rx.cond(chosen, {"outline": "2px solid var(--accent-9)"}, {}),
        width="100%",
    )


def _problems() -> rx.Component:
    return rx.box(
        rx.cond(
            S.problems.length() > 0,
            rx.box(
                rx.text(
                    "The import would refuse these areas; fix each problem before saving:", weight="medium", size="2"
                ),
                rx.el.ul(
                    rx.foreach(
                        S.problems,
                        lambda p: rx.el.li(
                            rx.code(p["path"], size="1"), " ", rx.text(p["message"], as_="span", size="2")
                        ),
                    ),
                    style={"paddingLeft": "18px", "margin": "4px 0 0"},
                    id="areas-problems",
                ),
                style={
                    "background": "var(--red-3)",
                    "color": "var(--red-11)",
                    "border": "1px solid var(--red-6)",
                    "borderRadius": "var(--radius-3)",
                    "padding": "10px 12px",
                },
            ),
            rx.cond(
                S.loaded,
                rx.text(
                    rx.cond(S.dirty, "No problems found: ready to save.", "Saved."),
                    size="2",
                    color="var(--gray-11)",
                    id="areas-ok",
                ),
            ),
        ),
        role="status",
        aria_live="polite",
        width="100%",
    )


def _editor() -> rx.Component:
    surface = rx.cond(
        S.screenshot != "",
        area_editor(
            src=S.screenshot,
            alt="Screenshot of the page under test: " + S.test_name,
            boxes=S.boxes,
            selected=S.selected,
            step=rules.KEY_STEP,
            min_size=rules.MIN_SIZE,
            on_area_create=S.create_area,
            on_area_change=S.change_area,
            on_area_select=S.select_area,
        ),
        rx.callout(
            "This test has no screenshot yet: upload one on the Images page.",
            icon="image-off",
            id="areas-no-screenshot",
        ),
    )
    return rx.vstack(
        rx.text("Test: ", rx.text.strong(S.test_name, id="areas-test-name"), " · ", S.status, size="3"),
        rx.el.ul(
            *[rx.el.li(rx.text(line, size="2")) for line in HELP],
            id="areas-help",
            style={"paddingLeft": "18px", "margin": "0", "color": "var(--gray-11)"},
        ),
        rx.flex(
            rx.box(
                surface,
                class_name="areas-surface",
                flex=rx.breakpoints(initial="0 0 auto", md="3 1 0"),
                style={
                    "minWidth": "0",
                    "width": "100%",
                    "border": "1px solid var(--gray-6)",
                    "borderRadius": "var(--radius-3)",
                    "overflow": "hidden",
                    "alignSelf": "flex-start",
                },
            ),
            rx.vstack(
                rx.hstack(
                    confirm_dialog(
                        S.version_warning != "",
                        "Save the areas as a new version?",
                        S.version_warning,
                        "Save as version " + (S.version_in_use + 1).to_string(),
                        S.save_new_version,
                        S.keep_editing,
                        "areas-new-version",
                        dismiss_label="Keep editing",
                    ),
                    rx.button(
                        "Save areas",
                        on_click=S.save,
                        loading=S.saving,
                        disabled=~CAN_EDIT | S.saving,
                        id="areas-save",
                        size="2",
                    ),
                    rx.button(
                        rx.icon("square-plus", size=16),
                        "Add an area",
                        on_click=S.create_area(list(rules.NEW_BOX)),
                        variant="soft",
                        size="2",
                        disabled=~CAN_EDIT | (S.screenshot == ""),
                        id="areas-add",
                    ),
                    rx.button(
                        "Undo changes",
                        on_click=S.revert,
                        variant="soft",
                        color_scheme="gray",
                        size="2",
                        disabled=~S.dirty,
                        id="areas-revert",
                    ),
                    rx.cond(
                        S.dirty, rx.badge("Unsaved changes", color_scheme="amber", variant="soft", id="areas-dirty")
                    ),
                    spacing="3",
                    align="center",
                    wrap="wrap",
                ),
                _problems(),
                rx.cond(
                    S.areas.length() == 0,
                    rx.text("No areas yet: drag on the screenshot to draw the first one.", size="2", id="areas-empty"),
                ),
                rx.foreach(S.rows, _area_card),
                spacing="3",
                flex=rx.breakpoints(initial="0 0 auto", md="2 1 0"),
                style={"minWidth": "0", "width": "100%"},
            ),
            direction=rx.breakpoints(initial="column", md="row"),
            gap="16px",
            width="100%",
        ),
        spacing="4",
        width="100%",
        id="areas-editor",
        data_loaded=rx.cond(S.loaded, "true", "false"),
    )


@staff_page("/admin/tests/[test_id]/areas", "Highlight areas", on_load=[S.load])
def areas_page() -> rx.Component:
    return admin_layout(
        test_tabs("areas"),
        rx.cond(
            S.load_error != "",
            rx.callout(S.load_error, icon="info", color_scheme="gray", id="areas-load-error"),
            rx.cond(S.loaded, _editor(), rx.center(rx.spinner(size="3"), padding="48px", aria_label="Loading")),
        ),
    )
