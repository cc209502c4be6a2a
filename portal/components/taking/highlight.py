"""The highlight (landing-page) and pricing test screens: intro, the instructions and frame-of-mind
modals, the pre-check, the split view (screenshot with the areas left, questions right; stacked
below 768 px), then the shared personal-info step and thank-you.

Every control is a native button, link or checkbox (keyboard operable, visible focus); the
modals are Radix dialogs (Escape closes, focus is trapped); the screenshot has a text alternative.
"""

from __future__ import annotations

import reflex as rx
from reflex.vars import NumberVar, ObjectVar
from reflex_components_core.base.error_boundary import error_boundary

from portal.components.icons import icon_switch
from portal.components.taking.questions import question_body
from portal.components.taking.screens import screen
from portal.components.taking.thank_you import thank_you
from portal.components.taking.timed_session import bridge, timeout_modal, timer
from portal.components.taking.worker_details_step import end_step
from portal.domain.taking import survey_view as view
from portal.domain.taking.kinds import highlight as rules
from portal.states.taking.highlight import FORM_CRASHED, HOME, INTRO, PRECHECK, QUESTIONS
from portal.states.taking.highlight import HighlightState as S

_CARD = {"width": "100%", "maxWidth": "760px", "margin": "0 auto"}
_WIDE = {"width": "100%", "maxWidth": "1280px", "margin": "0 auto"}


def instructions_modal() -> rx.Component:
    return rx.dialog.root(
        rx.dialog.content(
            rx.dialog.title(S.instructions_title, id="instructions-title"),
            rx.el.ul(
                rx.foreach(S.instructions_body, lambda line: rx.el.li(rx.text(line, size="3"))),
                style={"paddingLeft": "20px", "display": "flex", "flexDirection": "column", "gap": "6px"},
                id="instructions-body",
            ),
            rx.flex(
                rx.dialog.close(rx.button(S.instructions_button, size="3", id="instructions-close")),
                justify="end",
                margin_top="16px",
            ),
            max_width="520px",
        ),
        open=S.instructions_open,
        on_open_change=lambda _: S.close_instructions(),
    )


def frame_modal() -> rx.Component:
    return rx.alert_dialog.root(
        rx.alert_dialog.content(
            rx.alert_dialog.title(rules.FRAME_OF_MIND),
            rx.alert_dialog.description(S.frame_of_mind, size="3", id="frame-of-mind-text"),
            rx.flex(
                rx.alert_dialog.action(rx.button("Confirm", size="3", on_click=S.confirm_frame, id="frame-confirm")),
                justify="end",
                margin_top="16px",
            ),
            max_width="520px",
        ),
        open=S.frame_open,
    )


def intro() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.heading(S.title, size="7", id="highlight-title"),
            rx.text(
                "You will read a page, then answer questions about its messaging, one part at a time.",
                size="3",
                color="var(--gray-11)",
            ),
            rx.el.ul(
                *[rx.el.li(rx.text(line, size="3")) for line in rules.INSTRUCTIONS],
                style={
                    "paddingLeft": "20px",
                    "margin": "0",
                    "display": "flex",
                    "flexDirection": "column",
                    "gap": "6px",
                },
            ),
            rx.hstack(
                rx.button(
                    rules.SEE_INSTRUCTIONS,
                    variant="soft",
                    size="3",
                    on_click=S.open_instructions,
                    id="intro-instructions",
                ),
                rx.button(rules.START_LABEL, size="3", on_click=S.start_test, id="start-test"),
                spacing="3",
                wrap="wrap",
            ),
            spacing="4",
            align="start",
        ),
        size="4",
        style=_CARD,
        id="highlight-intro",
    )


def _screenshot(src: rx.Var, page: rx.Var | str, alt: rx.Var | str) -> rx.Component:
    return rx.el.img(
        src=src,
        alt=alt,
        data_screenshot=page,
        data_test_id=S.test_id.to_string(),
        style={"width": "100%", "height": "auto", "display": "block"},
    )


def precheck() -> rx.Component:
    home = S.has_home_page & (S.stage == HOME)
    return rx.vstack(
        rx.card(
            rx.vstack(
                rx.heading(
                    rx.cond(home, rules.PRICING_HOME_TITLE, rules.PRECHECK_TITLE),
                    size="6",
                    as_="h1",
                    id="precheck-title",
                ),
                rx.text(
                    rx.cond(home, rules.PRICING_HOME_TEXT, rules.PRECHECK_TEXT),
                    size="3",
                    color="var(--gray-11)",
                    id="precheck-text",
                ),
                spacing="2",
            ),
            size="3",
            width="100%",
        ),
        rx.box(
            rx.cond(
                home,
                _screenshot(S.home_screenshot, HOME, "Screenshot of the home page, to read before the pricing page"),
                _screenshot(S.screenshot, "page", "Screenshot of the page under test: " + S.page_url),
            ),
            class_name="highlight-precheck-shot",
            id="precheck-screenshot",
        ),
        rx.card(
            rx.vstack(
                rx.el.label(
                    rx.checkbox(id="precheck-confirm", checked=S.read_confirmed, on_change=S.confirm_read, size="3"),
                    rx.text(rules.CONFIRM_READ, size="3"),
                    html_for="precheck-confirm",
                    style={"display": "flex", "gap": "10px", "alignItems": "center", "cursor": "pointer"},
                ),
                rx.button(
                    rules.PROCEED_TO_QUESTIONS,
                    size="3",
                    on_click=S.proceed,
                    disabled=~S.read_confirmed,
                    id="precheck-proceed",
                ),
                spacing="3",
                align="start",
            ),
            size="3",
            width="100%",
        ),
        spacing="4",
        style={**_CARD, "maxWidth": "1000px"},
        id="highlight-precheck",
        data_stage=S.stage,
    )


def _area(area: ObjectVar[dict[str, str]], index: NumberVar[int]) -> rx.Component:
    current = index == S.current_area
    return rx.box(
        rx.el.span(area["number"], class_name="highlight-area-index"),
        id="highlight-area-" + index.to_string(),
        class_name=rx.cond(current, "highlight-area highlight-area-current", "highlight-area"),
        aria_hidden="true",
        style={"left": area["left"], "top": area["top"], "width": area["width"], "height": area["height"]},
    )


def toolbar() -> rx.Component:
    return rx.flex(
        rx.button(
            rx.icon("info", size=16),
            rules.SEE_INSTRUCTIONS,
            variant="soft",
            size="2",
            on_click=S.open_instructions,
            id="toolbar-instructions",
        ),
        rx.button(
            icon_switch(S.show_highlight, "eye-off", "eye", size=16),
            rx.cond(S.show_highlight, rules.HIDE_HIGHLIGHT, rules.SHOW_HIGHLIGHT),
            variant="soft",
            size="2",
            on_click=S.toggle_highlight,
            aria_pressed=S.show_highlight,
            id="toolbar-highlight",
        ),
        rx.link(
            rx.icon("maximize-2", size=16),
            rules.OPEN_SCREENSHOT,
            href=S.screenshot,
            is_external=True,
            rel="noopener noreferrer",
            size="2",
            id="toolbar-screenshot",
            class_name="highlight-toolbar-link",
        ),
        rx.link(
            rx.icon("external-link", size=16),
            rules.OPEN_PAGE,
            href=S.page_url,
            is_external=True,
            rel="noopener noreferrer",
            size="2",
            id="toolbar-page",
            class_name="highlight-toolbar-link",
        ),
        rx.spacer(),
        rx.cond(S.area_label != "", rx.badge(S.area_label, size="2", variant="solid", id="toolbar-area")),
        timer(S),
        gap="8px",
        wrap="wrap",
        align="center",
        width="100%",
        id="highlight-toolbar",
        role="toolbar",
        aria_label="Test tools",
    )


def _questions_pane() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.hstack(
                rx.text(S.block_label, size="2", weight="medium", color="var(--accent-11)", id="highlight-block"),
                rx.cond(S.current["required"].to(bool), rx.badge("Required", color_scheme="red", variant="soft")),
                spacing="2",
                align="center",
            ),
            rx.cond(S.is_overall, rx.text(rules.OVERALL_HINT, size="2", color="var(--gray-11)", id="overall-hint")),
            question_body(S, heading_size="4"),
            rx.hstack(
                rx.button(
                    "Back",
                    variant="soft",
                    color_scheme="gray",
                    size="3",
                    on_click=S.go_back,
                    disabled=~S.can_go_back,
                    id="highlight-back",
                ),
                rx.button(
                    rx.cond(S.submitting, view.SUBMITTING, S.next_label),
                    size="3",
                    on_click=S.go_next,
                    # 'Next', 'Next Highlight', 'Proceed' and Submit wait for a valid answer (the spec); the server
                    # checks again (go_next).
                    disabled=S.submitting | ~S.current_valid,
                    loading=S.submitting,
                    id="highlight-next",
                ),
                justify="between",
                width="100%",
                padding_top="8px",
            ),
            spacing="4",
            align="start",
            width="100%",
        ),
        size="3",
        class_name="highlight-questions",
        id="highlight-question",
        data_answers="question",
    )


def split_view() -> rx.Component:
    return rx.vstack(
        toolbar(),
        rx.box(
            rx.box(
                rx.box(
                    _screenshot(S.screenshot, "page", "Screenshot of the page under test: " + S.page_url),
                    rx.cond(S.show_highlight, rx.foreach(S.areas, _area)),
                    class_name="highlight-shot",
                ),
                id="highlight-screenshot-pane",
                class_name="highlight-pane",
                tab_index=0,
                aria_label="Screenshot of the page (scrollable)",
                role="region",
            ),
            _questions_pane(),
            class_name="highlight-split",
        ),
        spacing="3",
        style=_WIDE,
        id="highlight-split",
    )


@screen(S)
def highlight_view(*, signed_in: rx.Var[bool], referral: rx.Var[bool], starts_itself: bool = False) -> rx.Component:
    """`starts_itself`: the view enters the test when mounted (the staff preview); on the rating page
    the page's load event has entered it already."""
    in_flow = (S.phase == PRECHECK) | (S.phase == "end")
    return rx.box(
        bridge(S),
        rx.cond(in_flow, rx.hstack(rx.spacer(), timer(S), width="100%", style=_CARD)),
        rx.cond(
            S.crashed,
            rx.callout(
                FORM_CRASHED, icon="triangle-alert", color_scheme="red", role="alert", id="form-crashed", style=_CARD
            ),
            error_boundary(
                rx.match(
                    S.phase,
                    (INTRO, intro()),
                    (PRECHECK, precheck()),
                    (QUESTIONS, split_view()),
                    ("end", end_step(S)),
                    ("thank-you", thank_you(S, signed_in=signed_in, referral=referral)),
                    (
                        "reviewed",
                        rx.callout(
                            "You've already reviewed this test.", icon="info", id="survey-reviewed", style=_CARD
                        ),
                    ),
                    rx.center(rx.spinner(size="3"), padding="48px"),
                ),
                on_error=S.form_crashed,
                fallback_render=rx.callout(FORM_CRASHED, icon="triangle-alert", color_scheme="red", role="alert"),
            ),
        ),
        instructions_modal(),
        frame_modal(),
        timeout_modal(S),
        width="100%",
        data_survey_phase=S.phase,
        id="highlight-root",
        **({"on_mount": S.begin} if starts_itself else {}),
    )
