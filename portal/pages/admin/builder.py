"""/admin/tests/[test_id]/build: the test builder. Staff build the test's content in forms (no JSON): a
survey's pages and questions of all 12 types with branching, the screener, a preference test's concepts,
a landing-page or pricing test's pages and question blocks. Every message of the definition checks shows
beside its field as the document changes; questions and entries are added, moved and removed with
buttons; the draft is kept on every change, previewed as it is, and saved through the one save door."""

from __future__ import annotations

from typing import Any

import reflex as rx
from reflex.vars import ArrayVar

from portal.components.admin import admin_layout, confirm_dialog
from portal.components.admin_pages import staff_page
from portal.components.admin_test import test_base_path, test_tabs
from portal.components.form import (
    checkbox_field,
    field_label,
    form_error,
    select_field,
    text_field,
    textarea_field,
)
from portal.domain.authoring.question_kinds import TYPE_OPTIONS
from portal.domain.authoring.view import END_OF_SURVEY
from portal.domain.staff import roles
from portal.states.admin.builder import NEW_TYPE
from portal.states.admin.builder import BuilderState as S

TEXT_DEBOUNCE_MS = 400
SCREENER_TYPES = [("single", "Single choice"), ("multiple", "Multiple choice"), ("matrix", "Matrix")]
NUMBER_TYPES = [("value", "A value"), ("percentage", "A percentage")]
PREFERENCE_TYPES = [("image", "Image concepts"), ("text", "Text options")]


# --- fields -------------------------------------------------------------------------------------------


def _err(path: str) -> Any:
    return S.errors.get(path, "")


def _id(path: str) -> str:
    return "b-" + path.replace(".", "-")


def _text(label: Any, path: str, helper: str | None = None, area: bool = False, **props: Any) -> rx.Component:
    """A text field of the document at a fixed path."""
    bound = {
        "id": _id(path),
        "value": S.fields.get(path, ""),
        "on_change": lambda v: S.set_text(path, v),
        "debounce": TEXT_DEBOUNCE_MS,
        "error": _err(path),
        "helper": helper,
        "size": "2",
    }
    if area:
        return textarea_field(label, rows=props.pop("rows", "2"), **bound, **props)
    return text_field(label, **bound, **props)


def _row_text(label: str, field_id: Any, value: Any, path: Any, error: Any = None, area: bool = False, **props: Any):
    """A text field of a row (a question or an entry), bound to its path."""
    bound = {
        "id": field_id,
        "value": value,
        "on_change": lambda v: S.set_text(path, v),
        "debounce": TEXT_DEBOUNCE_MS,
        "error": error,
        "size": "2",
    }
    if area:
        return textarea_field(label, rows=props.pop("rows", "2"), **bound, **props)
    return text_field(label, **bound, **props)


def _check(label: str, field_id: Any, checked: Any, path: Any, error: Any = None) -> rx.Component:
    return checkbox_field(label, id=field_id, checked=checked, on_change=lambda v: S.set_flag(path, v), error=error)


def _section(title: str, *children: Any, section_id: str, intro: str | None = None) -> rx.Component:
    parts: list[Any] = [rx.heading(title, size="4", as_="h2")]
    if intro:
        parts.append(rx.text(intro, size="2", color="var(--gray-11)"))
    return rx.box(
        rx.vstack(*parts, *children, spacing="4", width="100%"),
        class_name="admin-panel",
        id=section_id,
        width="100%",
    )


def _grid(*children: Any, columns: str = "2") -> rx.Component:
    return rx.grid(*children, columns=rx.breakpoints(initial="1", sm=columns), spacing="4", width="100%")


def _icon_button(icon: str, label: Any, on_click: Any, *, disabled: Any = False, danger: bool = False, **props: Any):
    return rx.tooltip(
        rx.icon_button(
            rx.icon(icon, size=16),
            on_click=on_click,
            disabled=disabled,
            aria_label=label,
            variant="soft",
            color_scheme="red" if danger else "gray",
            size="2",
            type="button",
            class_name="builder-button",
            **props,
        ),
        content=label,
    )


def _move_buttons(noun: Any, row: Any, *, up: Any, down: Any, remove: Any, id_prefix: Any) -> rx.Component:
    """Move up / Move down / Remove for one question or entry: real buttons with their names."""
    number = (row.index + 1).to_string()
    return rx.hstack(
        _icon_button("arrow-up", "Move " + noun + " " + number + " up", up, disabled=row.first, id=id_prefix + "-up"),
        _icon_button(
            "arrow-down", "Move " + noun + " " + number + " down", down, disabled=row.last, id=id_prefix + "-down"
        ),
        _icon_button("trash-2", "Remove " + noun + " " + number, remove, danger=True, id=id_prefix + "-remove"),
        spacing="1",
        flex_shrink="0",
    )


# --- entries of a list (options, statements, answers, scale points) --------------------------------------


def _entries(
    title: str,
    noun: str,
    items: ArrayVar[Any],
    list_path: Any,
    list_id: Any,
    error: Any,
    *,
    render: Any,
    add_label: str,
) -> rx.Component:
    """A list of entries, each with its fields and its buttons, and the button that adds one."""

    def entry(item: Any) -> rx.Component:
        return rx.flex(
            rx.box(render(item), flex="1 1 260px", min_width="0"),
            _move_buttons(
                noun,
                item,
                up=S.move_item(list_path, item.index, -1),
                down=S.move_item(list_path, item.index, 1),
                remove=S.remove_item(list_path, item.index),
                id_prefix=item.dom_id,
            ),
            gap="8px",
            align="end",
            width="100%",
            class_name="builder-entry",
            wrap="wrap",
        )

    return rx.el.fieldset(
        field_label(title, tag="legend"),
        rx.vstack(rx.foreach(items, entry), spacing="3", width="100%"),
        rx.cond(
            error != "",
            rx.text(
                error, size="2", color_scheme="red", role="alert", id=list_id + "-error", class_name="portal-error"
            ),
        ),
        rx.button(
            rx.icon("plus", size=14),
            add_label,
            on_click=S.add_item(list_path),
            variant="soft",
            size="2",
            type="button",
            id=list_id + "-add",
            margin_top="8px",
        ),
        class_name="portal-fieldset builder-list",
        id=list_id,
        width="100%",
    )


def _line(*fields: Any) -> rx.Component:
    """An entry's fields side by side, wrapping on a narrow screen."""
    return rx.flex(*[rx.box(f, flex="1 1 180px", min_width="0") for f in fields], gap="8px", wrap="wrap", width="100%")


def _value_label(item: Any, *extra: Any, value_label: str = "Value (stored)", label: str = "Label") -> rx.Component:
    return _line(
        _row_text(label, item.dom_id + "-label", item.label, item.path + ".label"),
        _row_text(value_label, item.dom_id + "-value", item.value, item.path + ".value"),
        *extra,
    )


def _item_error(item: Any) -> rx.Component:
    return rx.cond(
        item.error != "",
        rx.text(item.error, size="1", color_scheme="red", role="alert", id=item.dom_id + "-error"),
    )


def _option(row: Any) -> Any:
    def render(item: Any) -> rx.Component:
        target = select_field(
            "Goes to",
            id=item.dom_id + "-target",
            options=row.targets,
            value=item.target,
            on_change=lambda v: S.set_text(item.path + ".conditional", v),
            native=True,
            size="2",
        )
        return rx.vstack(
            rx.cond(row.conditional, _value_label(item, target), _value_label(item)),
            _item_error(item),
            spacing="2",
            width="100%",
        )

    return render


def _plain(item: Any) -> rx.Component:
    return rx.vstack(_value_label(item), _item_error(item), spacing="2", width="100%")


def _scale(item: Any) -> rx.Component:
    return rx.vstack(_value_label(item, value_label="Value (a number)"), _item_error(item), spacing="2", width="100%")


# --- a question --------------------------------------------------------------------------------------


def _settings(row: Any) -> rx.Component:
    p = row.path
    e = row.errors
    choice = rx.fragment(
        _entries(
            "Options",
            "option",
            row.options,
            p + ".options",
            row.dom_id + "-options",
            e["options"],
            render=_option(row),
            add_label="Add option",
        ),
        rx.flex(
            rx.cond(
                row.has_randomize,
                _check("Show the options in random order", row.dom_id + "-random", row.randomized, p + ".isRandomized"),
            ),
            rx.cond(
                row.has_other, _check("Add an 'Other' option", row.dom_id + "-other", row.other, p + ".withOtherOption")
            ),
            rx.cond(
                row.has_conditional,
                _check(
                    "Branch on the answer (each option goes to a page, or ends the survey)",
                    row.dom_id + "-conditional",
                    row.conditional,
                    p + ".withConditional",
                    e["withConditional"],
                ),
            ),
            gap="8px 20px",
            wrap="wrap",
        ),
        rx.cond(
            row.has_choice_limit,
            rx.vstack(
                _check(
                    "Limit how many options can be chosen",
                    row.dom_id + "-limit",
                    row.choice_limit,
                    p + ".withChoiceLimit",
                ),
                rx.cond(
                    row.choice_limit,
                    rx.grid(
                        _row_text(
                            "At least",
                            row.dom_id + "-min",
                            row.min,
                            p + ".choiceLimits.min.value",
                            input_mode="numeric",
                        ),
                        _row_text(
                            "At most", row.dom_id + "-max", row.max, p + ".choiceLimits.max.value", input_mode="numeric"
                        ),
                        columns="2",
                        spacing="3",
                        width="100%",
                    ),
                ),
                rx.cond(
                    e["choiceLimits"] != "",
                    rx.text(
                        e["choiceLimits"], size="2", color_scheme="red", role="alert", id=row.dom_id + "-limits-error"
                    ),
                ),
                spacing="2",
                width="100%",
            ),
        ),
    )
    rating = rx.fragment(
        _entries(
            "Scale points",
            "scale point",
            row.scales,
            p + ".scales",
            row.dom_id + "-scales",
            e["scales"],
            render=_scale,
            add_label="Add scale point",
        ),
        _grid(
            _row_text("Label of the low end", row.dom_id + "-low", row.low, p + ".labels.low"),
            _row_text("Label of the high end", row.dom_id + "-high", row.high, p + ".labels.high", error=e["labels"]),
        ),
    )
    matrix = rx.fragment(
        _entries(
            "Statements (rows)",
            "statement",
            row.statements,
            p + ".statements",
            row.dom_id + "-statements",
            e["statements"],
            render=_plain,
            add_label="Add statement",
        ),
        _entries(
            "Answers (columns)",
            "answer",
            row.answers,
            p + ".answers",
            row.dom_id + "-answers",
            e["answers"],
            render=_plain,
            add_label="Add answer",
        ),
        _check(
            "Several answers per statement", row.dom_id + "-multiple", row.allow_multiple, p + ".allowMultipleAnswers"
        ),
    )
    return rx.fragment(
        rx.cond(row.has_options, choice),
        rx.cond(row.has_scales, rating),
        rx.cond(row.has_matrix, matrix),
        rx.cond(
            row.has_number_type,
            select_field(
                "The number is",
                id=row.dom_id + "-number-type",
                options=NUMBER_TYPES,
                value=row.number_type,
                on_change=lambda v: S.set_text(p + ".numberType", v),
                error=e["numberType"],
                size="2",
            ),
        ),
        rx.cond(
            row.has_limited,
            _check("At least 15 words", row.dom_id + "-limited", row.limited, p + ".isLimited"),
        ),
    )


def _question(row: Any) -> rx.Component:
    p = row.path
    e = row.errors
    header = rx.flex(
        rx.hstack(
            rx.badge("Question ", (row.index + 1).to_string(), size="2", variant="solid"),
            rx.text(row.type_label, weight="medium", size="2"),
            rx.code(row.key, size="1", variant="ghost", color_scheme="gray"),
            align="center",
            spacing="2",
            wrap="wrap",
        ),
        rx.spacer(),
        _move_buttons(
            "question",
            row,
            up=S.move_question(row.list_path, row.index, -1),
            down=S.move_question(row.list_path, row.index, 1),
            remove=S.remove_question(row.list_path, row.index),
            id_prefix=row.dom_id,
        ),
        align="center",
        width="100%",
        gap="8px",
        wrap="wrap",
    )
    media = rx.el.details(
        rx.el.summary("Images and video", class_name="builder-summary"),
        rx.vstack(
            _row_text(
                "Images (one address per line)",
                row.dom_id + "-images",
                row.images,
                p + ".images",
                error=e["images"],
                area=True,
                helper="An https:// address, or a site path such as /media/....",
            ),
            _row_text(
                "Embedded video",
                row.dom_id + "-video",
                row.embedded,
                p + ".embeddedLink",
                error=e["embeddedLink"],
                helper="A YouTube, Vimeo, Dailymotion or Loom link.",
                placeholder="https://www.youtube.com/embed/...",
            ),
            spacing="3",
            width="100%",
            padding_top="8px",
        ),
        open=(row.images != "") | (row.embedded != "") | (e["images"] != "") | (e["embeddedLink"] != ""),
    )
    return rx.card(
        rx.vstack(
            header,
            rx.cond(
                e["question"] != "",
                rx.callout(
                    e["question"], icon="triangle-alert", color_scheme="red", size="1", id=row.dom_id + "-error"
                ),
            ),
            _grid(
                select_field(
                    "Type",
                    id=row.dom_id + "-type",
                    options=TYPE_OPTIONS,
                    value=row.type,
                    on_change=lambda v: S.set_type(p, v),
                    error=e["type"],
                    size="2",
                ),
                rx.cond(
                    row.has_page,
                    _row_text(
                        "Page", row.dom_id + "-page", row.page, p + ".page", error=e["page"], input_mode="numeric"
                    ),
                ),
            ),
            _row_text("Question text", row.dom_id + "-text", row.text, p + ".text", error=e["text"], area=True),
            _grid(
                _row_text(
                    "Description",
                    row.dom_id + "-description",
                    row.description,
                    p + ".description",
                    error=e["description"],
                ),
                _row_text("Hint", row.dom_id + "-hint", row.hint, p + ".hint", error=e["hint"]),
            ),
            rx.cond(
                row.answered,
                _check("Required", row.dom_id + "-required", row.required, p + ".isRequired", e["isRequired"]),
            ),
            _settings(row),
            media,
            spacing="3",
            width="100%",
        ),
        id=row.dom_id,
        class_name="builder-question",
        width="100%",
    )


def _questions(title: str, list_path: str, rows: ArrayVar[Any], *, intro: str | None = None) -> rx.Component:
    list_id = _id(list_path)
    adder = rx.flex(
        select_field(
            "New question's type",
            id=list_id + "-new-type",
            options=TYPE_OPTIONS,
            value=S.new_type.get(list_path, NEW_TYPE),
            on_change=lambda v: S.choose_new_type(list_path, v),
            size="2",
            width="240px",
        ),
        rx.button(
            rx.icon("plus", size=16),
            "Add question",
            on_click=S.add_question(list_path),
            size="2",
            type="button",
            id=list_id + "-add",
        ),
        gap="12px",
        align="end",
        wrap="wrap",
    )
    return rx.vstack(
        rx.heading(title, size="3", as_="h3"),
        *([rx.text(intro, size="2", color="var(--gray-11)")] if intro else []),
        rx.cond(
            _err(list_path) != "",
            rx.text(_err(list_path), size="2", color_scheme="red", role="alert", id=list_id + "-error"),
        ),
        rx.cond(rows.length() == 0, rx.text("No questions yet.", size="2", color="var(--gray-11)")),
        rx.foreach(rows, _question),
        adder,
        spacing="3",
        width="100%",
        id=list_id,
    )


# --- the kinds --------------------------------------------------------------------------------------


def _pages_of_survey() -> rx.Component:
    return _section(
        "Welcome and thank-you pages",
        _grid(
            _text("Welcome title", "survey.welcomePage.title"),
            _text("Start button", "survey.welcomePage.buttonLabel", "Empty: 'Start survey'."),
        ),
        _text("Welcome text", "survey.welcomePage.description", area=True),
        _text("Thank-you title", "survey.thankYouPage.title"),
        _text("Thank-you text", "survey.thankYouPage.description", area=True),
        section_id="builder-survey-pages",
    )


def _survey() -> rx.Component:
    return rx.fragment(
        _pages_of_survey(),
        _section(
            "Questions",
            _questions(
                "Survey questions",
                "survey.questions",
                S.survey_questions,
                intro=f"Questions on the same page follow each other; a branch goes to a later page's first "
                f"question, or ends the survey (page {END_OF_SURVEY}).",
            ),
            section_id="builder-questions",
        ),
    )


def _page_link(label: str, href: Any, link_id: str) -> rx.Component:
    return rx.el.a(label, href=href, id=link_id, class_name="admin-back-link")


def _video() -> rx.Component:
    return _section(
        "The recording",
        _text(
            "Recorder address",
            "videoTest.recorderUrl",
            "Where participants record themselves: they are sent there with their e-mail and first name.",
            placeholder="https://",
        ),
        section_id="builder-video",
    )


def _highlight() -> rx.Component:
    base = test_base_path()
    pricing = S.kind == "pricing"
    return rx.fragment(
        _section(
            "The page under test",
            _grid(
                _text(rx.cond(pricing, "Home page address", "Page address"), "url", placeholder="https://"),
                _text(
                    rx.cond(pricing, "Home page screenshot", "Screenshot"),
                    "screenshotUrl",
                    "Upload it on the Images tab: its address shows here.",
                ),
            ),
            rx.cond(
                pricing,
                _grid(
                    _text("Pricing page address", "pricingUrl", placeholder="https://"),
                    _text("Pricing page screenshot", "pricingScreenshotUrl", "Upload it on the Images tab as well."),
                ),
            ),
            rx.hstack(
                _page_link("Images tab: upload screenshots", base + "/images", "builder-images-link"),
                _page_link("Highlight areas and their questions", base + "/areas", "builder-areas-link"),
                spacing="5",
                wrap="wrap",
            ),
            section_id="builder-page",
        ),
        _section(
            "Questions",
            _questions(
                "First impression",
                "questions.first-impression",
                S.first_impression,
                intro="Asked first, about the page as a whole.",
            ),
            rx.divider(),
            _questions(
                "After the highlight areas",
                "questions.post-test",
                S.post_test,
                intro="Asked last. The areas' own questions are edited in the area editor.",
            ),
            section_id="builder-questions",
        ),
    )


def _concept(item: Any) -> rx.Component:
    return rx.vstack(
        _line(
            _row_text("Name", item.dom_id + "-name", item.label, item.path + ".name"),
            _row_text("Key (stored)", item.dom_id + "-key", item.value, item.path + ".key"),
            _row_text(
                "Image address",
                item.dom_id + "-url",
                item.url,
                item.path + ".url",
                placeholder="/media/... or https://",
            ),
        ),
        _item_error(item),
        spacing="2",
        width="100%",
    )


def _preference() -> rx.Component:
    ptype = S.fields.get("preferenceTest.preferenceType", "")
    return rx.fragment(
        _section(
            "Concepts",
            select_field(
                "Participants choose between",
                id="b-preferenceTest-preferenceType",
                options=PREFERENCE_TYPES,
                value=ptype,
                on_change=S.set_preference_type,
                error=_err("preferenceTest.preferenceType"),
                size="2",
                width="260px",
            ),
            rx.cond(
                ptype == "image",
                _entries(
                    "Image concepts",
                    "concept",
                    S.concepts,
                    "preferenceTest.images",
                    "b-preferenceTest-images",
                    _err("preferenceTest.images"),
                    render=_concept,
                    add_label="Add concept",
                ),
            ),
            rx.cond(
                ptype == "text",
                rx.vstack(
                    _text("Option one", "preferenceTest.textOptions.optionOne", area=True),
                    _text("Option two", "preferenceTest.textOptions.optionTwo", area=True),
                    _text("Option three", "preferenceTest.textOptions.optionThree", area=True),
                    form_error(_err("preferenceTest.textOptions"), id="b-preferenceTest-textOptions-error"),
                    spacing="3",
                    width="100%",
                ),
            ),
            section_id="builder-concepts",
        ),
        _section(
            "Questions",
            _grid(
                _text(
                    "Initial question",
                    "preferenceTest.initialQuestion",
                    "Kept in the test's file; participants read the custom one, else the kind's default prompt.",
                ),
                _text(
                    "Custom initial question",
                    "preferenceTest.customInitialQuestion",
                    "What participants read over the concepts. Empty: the default prompt.",
                ),
                _text(
                    "Follow-up question",
                    "preferenceTest.followUpQuestion",
                    "Kept in the test's file; participants read the custom one, else the default.",
                ),
                _text(
                    "Custom follow-up question",
                    "preferenceTest.customFollowUpQuestion",
                    "What participants are asked. Empty: 'Why did you choose concept A?'",
                ),
            ),
            _check(
                "The follow-up answer needs at least 15 words",
                "b-preferenceTest-isLimited",
                S.flags.get("preferenceTest.isLimited", False),
                "preferenceTest.isLimited",
            ),
            section_id="builder-preference-questions",
        ),
        _section(
            "Welcome and thank-you pages",
            _text("Welcome title", "preferenceTest.welcomePage.title"),
            _text("Welcome text", "preferenceTest.welcomePage.description", area=True),
            _text("Thank-you title", "preferenceTest.thankYouPage.title"),
            _text("Thank-you text", "preferenceTest.thankYouPage.description", area=True),
            section_id="builder-preference-pages",
        ),
    )


def _screener_answer(item: Any) -> rx.Component:
    return rx.vstack(
        _row_text("Answer", item.dom_id + "-text", item.label, item.path + ".text"),
        _check(
            "A correct answer (lets the participant in)",
            item.dom_id + "-correct",
            item.checked,
            item.path + ".isCorrect",
        ),
        _item_error(item),
        spacing="2",
        width="100%",
    )


def _screener_line(item: Any) -> rx.Component:
    return rx.vstack(
        _row_text("Text", item.dom_id + "-text", item.label, item.path), _item_error(item), spacing="1", width="100%"
    )


def _correct_grid() -> rx.Component:
    def row(statement: Any) -> rx.Component:
        return rx.el.fieldset(
            rx.el.legend(
                "Correct answers for: ",
                rx.cond(statement.label != "", statement.label, "statement " + (statement.index + 1).to_string()),
                class_name="portal-label",
            ),
            rx.flex(
                rx.foreach(
                    S.screener_columns,
                    lambda column: rx.checkbox(
                        rx.cond(column.label != "", column.label, "answer " + (column.index + 1).to_string()),
                        checked=S.correct[statement.index][column.index],
                        on_change=lambda _v: S.toggle_correct(statement.index, column.index),
                        id="b-correct-" + statement.index.to_string() + "-" + column.index.to_string(),
                        size="2",
                    ),
                ),
                gap="8px 16px",
                wrap="wrap",
            ),
            class_name="portal-fieldset",
        )

    return rx.vstack(
        rx.foreach(S.screener_rows, row),
        form_error(_err("screenerQuestion.correctMatrix"), id="b-screenerQuestion-correctMatrix-error"),
        spacing="3",
        width="100%",
    )


def _screener() -> rx.Component:
    stype = S.fields.get("screenerQuestion.type", "")
    body = rx.vstack(
        select_field(
            "Screener type",
            id="b-screenerQuestion-type",
            options=SCREENER_TYPES,
            value=stype,
            on_change=S.set_screener_type,
            error=_err("screenerQuestion.type"),
            size="2",
            width="260px",
        ),
        _text("Screening question", "screenerQuestion.question", area=True),
        form_error(_err("screenerQuestion"), id="b-screenerQuestion-error"),
        rx.cond(
            stype == "matrix",
            rx.vstack(
                _grid(
                    _entries(
                        "Statements (rows)",
                        "row",
                        S.screener_rows,
                        "screenerQuestion.rows",
                        "b-screenerQuestion-rows",
                        _err("screenerQuestion.rows"),
                        render=_screener_line,
                        add_label="Add row",
                    ),
                    _entries(
                        "Answers (columns)",
                        "column",
                        S.screener_columns,
                        "screenerQuestion.columns",
                        "b-screenerQuestion-columns",
                        _err("screenerQuestion.columns"),
                        render=_screener_line,
                        add_label="Add column",
                    ),
                ),
                _check(
                    "Several answers per statement",
                    "b-screenerQuestion-allowMultiple",
                    S.flags.get("screenerQuestion.allowMultiple", False),
                    "screenerQuestion.allowMultiple",
                ),
                _correct_grid(),
                spacing="4",
                width="100%",
            ),
            _entries(
                "Answers",
                "answer",
                S.screener_answers,
                "screenerQuestion.answers",
                "b-screenerQuestion-answers",
                _err("screenerQuestion.answers"),
                render=_screener_answer,
                add_label="Add answer",
            ),
        ),
        spacing="4",
        width="100%",
    )
    return _section(
        "Screener",
        checkbox_field(
            "Ask a screening question first",
            id="b-screener-on",
            checked=S.has_screener,
            on_change=S.set_screener,
        ),
        rx.cond(S.has_screener, body),
        section_id="builder-screener",
        intro="Only people who give a correct answer take the test.",
    )


# --- the page -----------------------------------------------------------------------------------------


def _toolbar() -> rx.Component:
    base = test_base_path()
    status = rx.cond(
        S.problem_count == 0,
        rx.badge(rx.icon("circle-check", size=14), "No problems", color_scheme="green", size="2", high_contrast=True),
        rx.badge(
            rx.icon("triangle-alert", size=14),
            S.problem_count.to_string(),
            rx.cond(S.problem_count == 1, " problem", " problems"),
            color_scheme="red",
            size="2",
            high_contrast=True,
        ),
    )
    return rx.flex(
        rx.box(status, id="builder-status", aria_live="polite"),
        rx.cond(
            S.has_draft,
            rx.text("Draft kept: not saved yet", size="2", color="var(--amber-11)", id="builder-draft"),
            rx.text(
                "Saved (version ", S.version.to_string(), ")", size="2", color="var(--gray-11)", id="builder-saved"
            ),
        ),
        rx.spacer(),
        rx.el.a(
            rx.button(rx.icon("eye", size=16), "Preview draft", variant="soft", size="2", type="button"),
            href=base + "/preview?draft=1",
            id="builder-preview",
        ),
        rx.button(
            "Discard draft",
            variant="soft",
            color_scheme="gray",
            size="2",
            on_click=S.discard,
            disabled=~S.has_draft,
            id="builder-discard",
            type="button",
        ),
        rx.button(
            "Save changes",
            size="2",
            on_click=S.save,
            loading=S.saving,
            disabled=~S.has_draft,
            id="builder-save",
            type="button",
        ),
        gap="12px",
        align="center",
        wrap="wrap",
        width="100%",
        class_name="admin-panel builder-toolbar",
    )


def _other_problems() -> rx.Component:
    return rx.cond(
        S.other.length() > 0,
        rx.callout.root(
            rx.callout.icon(rx.icon("triangle-alert")),
            rx.callout.text("Problems not shown beside a field:"),
            rx.el.ul(rx.foreach(S.other, lambda line: rx.el.li(rx.text(line, size="2"))), style={"margin": 0}),
            color_scheme="red",
            id="builder-other-problems",
            width="100%",
        ),
    )


def _confirm() -> rx.Component:
    return confirm_dialog(
        S.warning != "",
        "Save as a new version?",
        S.warning,
        "Save as version " + (S.confirm_version + 1).to_string(),
        S.confirm_save,
        S.cancel_save,
        "builder-new-version",
        dismiss_label="Keep editing",
    )


@staff_page("/admin/tests/[test_id]/build", "Build", on_load=[S.load_page], permission=roles.MANAGE_TESTS)
def builder_page() -> rx.Component:
    return admin_layout(
        test_tabs("build"),
        rx.cond(
            S.test_id != "",
            rx.vstack(
                rx.heading(S.name, size="5", as_="h2", id="builder-test-name"),
                rx.text(
                    S.kind.capitalize(), " · ", S.product_type, size="2", color="var(--gray-11)", id="builder-kind"
                ),
                _toolbar(),
                _other_problems(),
                rx.match(
                    S.kind,
                    ("survey", _survey()),
                    ("highlight", _highlight()),
                    ("pricing", _highlight()),
                    ("preference", _preference()),
                    ("video", _video()),
                    rx.callout(
                        "This kind of test has no content to build here: its fields are on the details page.",
                        icon="info",
                        id="builder-nothing",
                    ),
                ),
                _screener(),
                _confirm(),
                spacing="4",
                width="100%",
            ),
            rx.center(rx.spinner(size="3"), padding="48px"),
        ),
    )
