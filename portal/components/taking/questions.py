"""One question of any type (spec section 5), shown for a kind's state with the QuestionFlow mixin.

Every input is labelled and keyboard operable (native radios, checkboxes, buttons and text boxes).
Text answers are sent 400 ms after typing stops; window.portalTaking keeps each keystroke in local
storage meanwhile (data-answer-key, data-store-key), and reports pastes; the answer's events carry the
browser's typing and leaving measures (MEASURES).
"""

from __future__ import annotations

import reflex as rx

from portal.domain.taking import survey_view as view
from portal.domain.taking.survey_answers import MAX_OTHER_LENGTH

TEXT_DEBOUNCE_MS = 400
# The browser's measures of the free-text answers (typing time, leaving the tab: assets/portal.js), read
# when a text answer's event is sent and carried by it: no event of their own (issue 36).
MEASURES: rx.Var = rx.Var(
    _js_expr="((window.portalTaking && window.portalTaking.measures) ? window.portalTaking.measures() : null)",
    _var_type=dict,
)
_OPTION = {
    "display": "flex",
    "alignItems": "center",
    "gap": "10px",
    "padding": "10px 12px",
    "cursor": "pointer",
    "border": "1px solid var(--gray-6)",
    "borderRadius": "var(--radius-3)",
    "background": "var(--color-surface)",
    "width": "100%",
    "boxSizing": "border-box",
}
INPUT = {"width": "18px", "height": "18px", "accentColor": "var(--accent-9)", "flexShrink": "0"}


def _key(S) -> rx.Var:
    """The shown question's key: every answer event names its question."""
    return S.current["key"].to(str)


def _option_row(control: rx.Component, label: rx.Var | str, option_id: rx.Var | str) -> rx.Component:
    return rx.el.label(control, rx.text(label, size="3"), html_for=option_id, style=_OPTION, class_name="survey-option")


def _other_input(S, placeholder: str = "Please specify") -> rx.Component:
    return rx.cond(
        S.other_chosen,
        rx.input(
            default_value=S.other_text,
            key=S.text_key + "-other",
            on_change=lambda v: S.set_other_text(_key(S), v).debounce(TEXT_DEBOUNCE_MS),
            on_blur=lambda v: S.set_other_text(_key(S), v),
            placeholder=placeholder,
            max_length=MAX_OTHER_LENGTH,  # the 101st character is refused as it is typed (issue 40)
            size="3",
            id="survey-other-text",
            aria_label="Other answer",
            width="100%",
        ),
    )


def _single(S) -> rx.Component:
    key = S.current["key"].to(str)
    return rx.vstack(
        rx.foreach(
            S.current["options"].to(list[dict[str, str]]),
            lambda o, i: _option_row(
                rx.el.input(
                    type="radio",
                    name=key,
                    value=o["value"],
                    id="opt-" + i.to_string(),
                    checked=S.single_value == o["value"],
                    on_change=S.choose(key, o["value"]),
                    style=INPUT,
                ),
                o["label"],
                "opt-" + i.to_string(),
            ),
        ),
        rx.cond(
            S.current["withOther"].to(bool),
            _option_row(
                rx.el.input(
                    type="radio",
                    name=key,
                    value=view.OTHER_VALUE,
                    id="opt-other",
                    checked=S.single_value == view.OTHER_VALUE,
                    on_change=S.choose(key, view.OTHER_VALUE),
                    style=INPUT,
                ),
                view.OTHER_LABEL,
                "opt-other",
            ),
        ),
        _other_input(S),
        role="radiogroup",
        aria_labelledby="question-text",
        width="100%",
        spacing="2",
    )


def _multi(S) -> rx.Component:
    return rx.vstack(
        rx.foreach(
            S.current["options"].to(list[dict[str, str]]),
            lambda o, i: _option_row(
                rx.el.input(
                    type="checkbox",
                    value=o["value"],
                    id="opt-" + i.to_string(),
                    checked=S.multi_values.contains(o["value"]),
                    on_change=S.toggle_option(_key(S), o["value"]),
                    style=INPUT,
                ),
                o["label"],
                "opt-" + i.to_string(),
            ),
        ),
        rx.cond(
            S.current["withOther"].to(bool),
            _option_row(
                rx.el.input(
                    type="checkbox",
                    id="opt-other",
                    checked=S.multi_values.contains(view.OTHER_VALUE),
                    on_change=S.toggle_option(_key(S), view.OTHER_VALUE),
                    style=INPUT,
                ),
                view.OTHER_LABEL,
                "opt-other",
            ),
        ),
        _other_input(S),
        role="group",
        aria_labelledby="question-text",
        width="100%",
        spacing="2",
    )


def _text(S, long: bool) -> rx.Component:
    common = dict(
        default_value=S.text_value,
        key=S.text_key,
        on_change=lambda v: S.set_text(_key(S), v, MEASURES).debounce(TEXT_DEBOUNCE_MS),
        # Leaving the box (e.g. clicking Continue) sends the text at once, before the click's event.
        on_blur=lambda v: S.set_text(_key(S), v, MEASURES),
        placeholder=view.TEXT_PLACEHOLDER,
        id="survey-text",
        aria_labelledby="question-text",
        custom_attrs={
            "data-answer-key": S.current["key"].to(str),
            "data-test-id": S.test_id.to_string(),
            "data-store-key": S.store_key,
        },
        width="100%",
        size="3",
    )
    if long:
        return rx.vstack(
            rx.text_area(rows="7", max_length=10000, **common),
            rx.text(S.word_count.to_string() + " words", size="1", color="var(--gray-10)", id="survey-word-count"),
            width="100%",
            spacing="1",
        )
    return rx.input(max_length=10000, **common)


def _number(S) -> rx.Component:
    return rx.hstack(
        rx.input(
            default_value=S.number_text,
            key=S.text_key,
            type="text",
            input_mode="decimal",
            on_change=lambda v: S.set_number(_key(S), v).debounce(TEXT_DEBOUNCE_MS),
            on_blur=lambda v: S.set_number(_key(S), v),
            id="survey-number",
            aria_labelledby="question-text",
            size="3",
            width="220px",
        ),
        rx.cond(S.current["percentage"].to(bool), rx.text("%", size="4")),
        align="center",
    )


def _rank(S) -> rx.Component:
    return rx.vstack(
        rx.text("Use the arrows to put the most important first.", size="2", color="var(--gray-11)"),
        rx.el.ol(
            rx.foreach(
                S.rank_options,
                lambda o, i: rx.el.li(
                    rx.hstack(
                        rx.badge((i + 1).to_string(), variant="soft", size="2"),
                        rx.text(o["label"], size="3", flex="1"),
                        rx.icon_button(
                            rx.icon("arrow-up", size=16),
                            variant="soft",
                            size="2",
                            on_click=S.rank_up(_key(S), o["value"]),
                            aria_label="Move " + o["label"] + " up",
                            disabled=i == 0,
                        ),
                        rx.icon_button(
                            rx.icon("arrow-down", size=16),
                            variant="soft",
                            size="2",
                            on_click=S.rank_down(_key(S), o["value"]),
                            aria_label="Move " + o["label"] + " down",
                            disabled=i == S.rank_options.length() - 1,
                        ),
                        align="center",
                        style=_OPTION,
                        class_name="survey-rank-item",
                    ),
                    style={"listStyle": "none"},
                ),
            ),
            style={
                "padding": "0",
                "margin": "0",
                "display": "flex",
                "flexDirection": "column",
                "gap": "8px",
                "width": "100%",
            },
            id="survey-rank",
        ),
        rx.cond(
            ~S.rank_started,
            rx.button("Keep this order", variant="outline", on_click=S.keep_rank(_key(S)), id="rank-keep"),
        ),
        width="100%",
        spacing="2",
    )


def _rating(S) -> rx.Component:
    return rx.vstack(
        rx.hstack(
            rx.foreach(
                S.current["scales"].to(list[dict[str, str]]),
                lambda s, i: rx.el.label(
                    rx.el.input(
                        type="radio",
                        name="rating",
                        id="rate-" + i.to_string(),
                        value=s["value"],
                        checked=S.rating_value == s["value"],
                        on_change=S.rate(_key(S), s["value"]),
                        style=INPUT,
                    ),
                    rx.text(s["label"], size="3"),
                    html_for="rate-" + i.to_string(),
                    style={**_OPTION, "flexDirection": "column", "minWidth": "48px", "width": "auto"},
                    class_name="survey-option",
                ),
            ),
            wrap="wrap",
            spacing="2",
            role="radiogroup",
            aria_labelledby="question-text",
        ),
        rx.hstack(
            rx.text(S.current["low"].to(str), size="2", color="var(--gray-11)"),
            rx.text(S.current["high"].to(str), size="2", color="var(--gray-11)"),
            justify="between",
            width="100%",
        ),
        width="100%",
    )


def _matrix(S) -> rx.Component:
    columns = S.current["columns"].to(list[dict[str, str]])
    multiple = S.current["multiple"].to(bool)
    return rx.vstack(
        rx.text(
            "Scroll horizontally to see all options", size="1", color="var(--gray-10)", class_name="portal-mobile-only"
        ),
        rx.box(
            rx.el.table(
                rx.el.thead(
                    rx.el.tr(
                        rx.el.th(rx.el.span("Statement", class_name="sr-only")),
                        rx.foreach(
                            columns,
                            lambda c: rx.el.th(c["label"], scope="col", style={"padding": "8px", "fontWeight": 500}),
                        ),
                    )
                ),
                rx.el.tbody(
                    rx.foreach(
                        S.current["statements"].to(list[dict[str, str]]),
                        lambda s, si: rx.el.tr(
                            rx.el.th(
                                s["label"],
                                scope="row",
                                style={"textAlign": "left", "padding": "8px", "fontWeight": 400, "minWidth": "160px"},
                            ),
                            rx.foreach(
                                columns,
                                lambda c, ci: rx.el.td(
                                    rx.el.input(
                                        type=rx.cond(multiple, "checkbox", "radio"),
                                        name="row-" + si.to_string(),
                                        id="cell-" + si.to_string() + "-" + ci.to_string(),
                                        checked=S.matrix_value.get(s["value"], []).to(list[str]).contains(c["value"]),
                                        on_change=S.pick_cell(_key(S), s["value"], c["value"]),
                                        aria_label=s["label"] + ": " + c["label"],
                                        style=INPUT,
                                    ),
                                    style={"textAlign": "center", "padding": "8px"},
                                ),
                            ),
                            style={"borderTop": "1px solid var(--gray-5)"},
                        ),
                    )
                ),
                style={"borderCollapse": "collapse", "minWidth": "480px", "width": "100%"},
                id="survey-matrix",
            ),
            style={"overflowX": "auto", "width": "100%"},
        ),
        width="100%",
    )


def _answer_area(S) -> rx.Component:
    return rx.match(
        S.current["kind"].to(str),
        ("single", _single(S)),
        ("multi", _multi(S)),
        ("short", _text(S, long=False)),
        ("long", _text(S, long=True)),
        ("number", _number(S)),
        ("rank", _rank(S)),
        ("rating", _rating(S)),
        ("matrix", _matrix(S)),
        rx.fragment(),
    )


def question_body(S, *, heading_size: str = "5") -> rx.Component:
    """The current question: text, description, images, video, the answer, hint and error."""
    current = S.current
    return rx.vstack(
        rx.heading(current["text"].to(str), size=heading_size, id="question-text", as_="h1"),
        rx.cond(
            current["description"].to(str) != "",
            rx.text(current["description"].to(str), size="3", color="var(--gray-11)"),
        ),
        rx.foreach(
            current["images"].to(list[str]),
            lambda src: rx.image(src=src, alt="Question image", max_width="100%", border_radius="8px"),
        ),
        rx.cond(
            current["embed"].to(str) != "",
            rx.el.iframe(
                src=current["embed"].to(str),
                title="Question video",
                allow="encrypted-media; picture-in-picture",
                # The element's own attributes: Reflex turns width=, height= and allow_full_screen= into CSS (without
                # units, so the browser dropped them: the video was stretched and could not go full screen).
                custom_attrs={
                    "width": str(view.EMBED_WIDTH),
                    "height": str(view.EMBED_HEIGHT),
                    "allowFullScreen": True,
                },
                # 600 x 400 (issue 40); narrower on a phone, keeping its shape.
                style={
                    "width": f"{view.EMBED_WIDTH}px",
                    "maxWidth": "100%",
                    "alignSelf": "flex-start",  # not stretched to the card's width
                    "height": "auto",
                    "aspectRatio": f"{view.EMBED_WIDTH} / {view.EMBED_HEIGHT}",
                    "border": "0",
                    "borderRadius": "8px",
                },
            ),
        ),
        _answer_area(S),
        rx.cond(
            current["hint"].to(str) != "",
            rx.text(current["hint"].to(str), size="2", color="var(--gray-11)", id="survey-hint"),
        ),
        rx.cond(
            S.current_error != "",
            rx.callout(
                S.current_error, color_scheme="red", icon="circle-alert", role="alert", id="survey-error", width="100%"
            ),
        ),
        spacing="4",
        align="start",
        width="100%",
    )
