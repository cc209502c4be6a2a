"""The preference test screens: welcome, choose a concept, the follow-up answer, confirm, thank-you.

The concepts are native radio buttons in one group: the arrow keys move between them and select,
Space selects, focus is visible. An image concept's picture opens the detailed view (a Radix
dialog: Escape closes it) with a step navigator, zoom and 'Select this concept'. Text concepts
come with the font-size switch.
"""

from __future__ import annotations

import reflex as rx
from reflex.vars import NumberVar, ObjectVar

from portal.components.icons import icon_switch
from portal.components.taking.questions import INPUT, MEASURES, TEXT_DEBOUNCE_MS
from portal.components.taking.screens import screen
from portal.components.taking.thank_you import thank_you
from portal.components.taking.timed_session import bridge, timeout_modal, timer
from portal.components.taking.worker_details_step import end_step
from portal.domain.taking.kinds import preference as rules
from portal.domain.taking.survey_answers import LIMITED_HINT
from portal.states.taking.preference import ANSWER, CHOOSE, WELCOME
from portal.states.taking.preference import PreferenceState as S

_CARD = {"width": "100%", "maxWidth": "960px", "margin": "0 auto"}
_FONT = {"small": "14px", "medium": "18px", "large": "24px"}


def welcome() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.heading(S.title, size="7", id="preference-title"),
            rx.cond(S.description != "", rx.text(S.description, size="3", color="var(--gray-11)")),
            rx.text("You will choose the concept you prefer, then tell us why.", size="3"),
            rx.button("Start test now", size="3", on_click=S.start_test, id="preference-start"),
            spacing="4",
            align="start",
        ),
        size="4",
        style={**_CARD, "maxWidth": "760px"},
        id="preference-welcome",
    )


def _concept_radio(concept: ObjectVar[dict[str, str]], index: NumberVar[int]) -> rx.Component:
    return rx.el.input(
        type="radio",
        name="concept",
        value=concept["key"],
        id="concept-" + index.to_string(),
        checked=S.selected == concept["key"],
        on_change=S.choose(concept["key"]),
        style=INPUT,
        data_chosen=rx.cond(
            S.selected == concept["key"], "true", "false"
        ),  # portal.js: a click on another is an answer
        aria_label="Concept " + concept["letter"] + ": " + concept["label"],
    )


def _image_concept(concept: ObjectVar[dict[str, str]], index: NumberVar[int]) -> rx.Component:
    chosen = S.selected == concept["key"]
    return rx.card(
        rx.vstack(
            rx.el.button(
                rx.el.img(
                    src=concept["url"],
                    alt="Concept " + concept["letter"] + ": " + concept["label"],
                    style={"width": "100%", "height": "auto", "display": "block", "borderRadius": "6px"},
                ),
                on_click=S.open_detail(index),
                type="button",
                class_name="preference-zoom-button",
                aria_label="Open concept " + concept["letter"] + " in the detailed view",
                id="concept-open-" + index.to_string(),
            ),
            rx.el.label(
                _concept_radio(concept, index),
                rx.text("Concept " + concept["letter"], weight="bold", size="3"),
                rx.text(concept["label"], size="2", color="var(--gray-11)"),
                html_for="concept-" + index.to_string(),
                class_name="preference-choice",
            ),
            spacing="2",
            width="100%",
        ),
        class_name=rx.cond(chosen, "preference-concept preference-chosen", "preference-concept"),
        data_concept=concept["key"],
    )


def _text_concept(concept: ObjectVar[dict[str, str]], index: NumberVar[int]) -> rx.Component:
    chosen = S.selected == concept["key"]
    return rx.el.label(
        _concept_radio(concept, index),
        rx.vstack(
            rx.text("Concept " + concept["letter"], weight="bold", size="2", color="var(--accent-11)"),
            rx.text(
                concept["label"],
                style={"fontSize": rx.match(S.font_size, *[(k, v) for k, v in _FONT.items()], "18px")},
                class_name="preference-text-option",
            ),
            spacing="1",
        ),
        html_for="concept-" + index.to_string(),
        class_name=rx.cond(
            chosen, "preference-concept preference-text preference-chosen", "preference-concept preference-text"
        ),
        data_concept=concept["key"],
    )


def _font_switch() -> rx.Component:
    return rx.hstack(
        rx.text("Text size", size="2", id="font-size-label"),
        rx.segmented_control.root(
            *[rx.segmented_control.item(label.capitalize(), value=label) for label in rules.FONT_SIZES],
            value=S.font_size,
            on_change=S.set_font_size,
            aria_labelledby="font-size-label",
            id="font-size",
        ),
        align="center",
        spacing="2",
    )


def choose() -> rx.Component:
    return rx.vstack(
        rx.heading(S.prompt, size="6", as_="h1", id="preference-prompt"),
        rx.cond(~S.is_image, _font_switch()),
        rx.box(
            rx.cond(
                S.is_image,
                rx.foreach(S.concepts, _image_concept),
                rx.foreach(S.concepts, _text_concept),
            ),
            role="radiogroup",
            aria_labelledby="preference-prompt",
            class_name=rx.cond(S.is_image, "preference-grid", "preference-list"),
            id="preference-concepts",
            data_answers="choice",  # a choice with no quick reply shows 'Saving…' (portal.js)
        ),
        rx.cond(
            S.choose_error != "",
            rx.callout(
                S.choose_error, color_scheme="red", icon="circle-alert", role="alert", id="choose-error", width="100%"
            ),
        ),
        rx.hstack(
            rx.spacer(),
            rx.button(
                "Continue",
                size="3",
                on_click=S.to_answer(S.selected),
                disabled=S.selected == "",
                id="preference-continue",
            ),
            width="100%",
        ),
        spacing="4",
        style=_CARD,
        id="preference-choose",
    )


def detail_dialog() -> rx.Component:
    return rx.dialog.root(
        rx.dialog.content(
            # The title keeps Radix's own id (the dialog is named by it): the page's id is on its text.
            rx.dialog.title(rx.el.span("Concept " + S.detail["letter"].to(str), id="detail-title")),
            rx.dialog.description(S.detail["label"].to(str), size="2"),
            rx.box(
                rx.el.img(
                    src=S.detail["url"].to(str),
                    alt="Concept " + S.detail["letter"].to(str) + ": " + S.detail["label"].to(str),
                    style={"width": rx.cond(S.zoomed, "200%", "100%"), "maxWidth": "none", "display": "block"},
                ),
                class_name="preference-detail-image",
                id="detail-image",
                # It scrolls when zoomed: reachable by the keyboard (arrow keys scroll it).
                tab_index=0,
                role="region",
                aria_label="Concept " + S.detail["letter"].to(str) + ", the picture",
            ),
            rx.flex(
                rx.button(
                    rx.icon("chevron-left", size=16),
                    "Previous",
                    variant="soft",
                    on_click=S.detail_step(-1),
                    id="detail-previous",
                ),
                rx.text(
                    (S.detail_index + 1).to_string() + " of " + S.concepts.length().to_string(),
                    size="2",
                    id="detail-step",
                ),
                rx.button(
                    "Next",
                    rx.icon("chevron-right", size=16),
                    variant="soft",
                    on_click=S.detail_step(1),
                    id="detail-next",
                ),
                rx.button(
                    icon_switch(S.zoomed, "zoom-out", "zoom-in", size=16),
                    rx.cond(S.zoomed, "Zoom out", "Zoom in"),
                    variant="soft",
                    color_scheme="gray",
                    on_click=S.toggle_zoom,
                    aria_pressed=S.zoomed,
                    id="detail-zoom",
                ),
                rx.spacer(),
                rx.dialog.close(rx.button("Close", variant="soft", color_scheme="gray", id="detail-close")),
                rx.button(
                    rules.SELECT_CONCEPT,
                    on_click=S.select_detail,
                    id="detail-select",
                    data_answers="choice",
                    data_chosen=rx.cond(S.selected == S.detail["key"].to(str), "true", "false"),
                ),
                gap="8px",
                wrap="wrap",
                align="center",
                margin_top="12px",
            ),
            max_width="900px",
            # The state puts the focus where it belongs: the chosen concept, or the one last viewed.
            on_close_auto_focus=rx.prevent_default,
        ),
        open=S.detail_open,
        on_open_change=lambda _: S.close_detail(),
    )


def answer() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.heading(S.follow_up, size="5", as_="h1", id="follow-up"),
            rx.text_area(
                default_value=S.answer_text,
                key=S.test_id.to_string() + "-" + S.selected + "-" + S.epoch.to_string(),
                on_change=lambda v: S.set_answer_text(S.selected, v, S.epoch, MEASURES).debounce(TEXT_DEBOUNCE_MS),
                on_blur=lambda v: S.set_answer_text(S.selected, v, S.epoch, MEASURES),
                placeholder=rules.PLACEHOLDER,
                rows="7",
                max_length=10000,
                id="preference-answer",
                aria_labelledby="follow-up",
                width="100%",
                size="3",
                custom_attrs={
                    "data-answer-key": "answer",
                    "data-test-id": S.test_id.to_string(),
                    "data-store-key": S.store_key,
                },
            ),
            rx.text(S.word_count.to_string() + " words", size="1", color="var(--gray-10)", id="preference-word-count"),
            rx.cond(S.is_limited, rx.text(LIMITED_HINT, size="2", color="var(--gray-11)")),
            rx.cond(
                S.answer_error != "",
                rx.callout(
                    S.answer_error,
                    color_scheme="red",
                    icon="circle-alert",
                    role="alert",
                    id="answer-error",
                    width="100%",
                ),
            ),
            rx.hstack(
                rx.button(
                    "Back",
                    variant="soft",
                    color_scheme="gray",
                    size="3",
                    on_click=S.back_to_choose,
                    id="preference-back",
                ),
                rx.button("Next", size="3", on_click=S.to_confirm(S.selected), id="preference-next"),
                justify="between",
                width="100%",
            ),
            spacing="3",
            align="start",
            width="100%",
        ),
        size="4",
        style={**_CARD, "maxWidth": "760px"},
        id="preference-answer-step",
    )


def _summary() -> rx.Component:
    return rx.vstack(
        rx.heading("Confirm your feedback", size="5", as_="h1"),
        rx.text("You chose ", rx.el.strong("concept " + S.selected_letter), ".", size="3", id="confirm-choice"),
        rx.blockquote(S.answer_text, size="3", id="confirm-answer"),
        spacing="2",
        width="100%",
    )


@screen(S)
def preference_view(*, signed_in: rx.Var[bool], referral: rx.Var[bool], starts_itself: bool = False) -> rx.Component:
    """`starts_itself`: the view enters the test when mounted (the staff preview); on the rating page
    the page's load event has entered it already."""
    running = (S.phase == CHOOSE) | (S.phase == ANSWER) | (S.phase == "end")
    return rx.box(
        bridge(S),
        rx.cond(running, rx.hstack(rx.spacer(), timer(S), width="100%", style=_CARD)),
        rx.match(
            S.phase,
            (WELCOME, welcome()),
            (CHOOSE, choose()),
            (ANSWER, answer()),
            ("end", end_step(S, back_label="Cancel", submit_label=rules.SUBMIT_LABEL, summary=_summary())),
            ("thank-you", thank_you(S, signed_in=signed_in, referral=referral)),
            (
                "reviewed",
                rx.callout("You've already reviewed this test.", icon="info", id="survey-reviewed", style=_CARD),
            ),
            rx.center(rx.spinner(size="3"), padding="48px"),
        ),
        detail_dialog(),
        timeout_modal(S),
        width="100%",
        data_survey_phase=S.phase,
        data_leave_guard=rx.cond(S.leave_guard, "true", "false"),
        data_test_id=S.test_id.to_string(),
        id="preference-root",
        **({"on_mount": S.begin} if starts_itself else {}),
    )
