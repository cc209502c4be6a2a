"""The survey screens: welcome, one question at a time with Back/Continue/Submit, and the view.

The question itself (every type) is components/questions, the timer and bridge
components/timed_session, the personal-info step components/worker_details_step.
"""

from __future__ import annotations

import reflex as rx

from portal.components.taking.questions import question_body
from portal.components.taking.screens import screen
from portal.components.taking.thank_you import thank_you
from portal.components.taking.timed_session import bridge, timeout_modal, timer
from portal.components.taking.worker_details_step import end_step
from portal.domain.taking import survey_view as view
from portal.states.taking.survey import SurveyState

_CARD = {"width": "100%", "maxWidth": "760px", "margin": "0 auto"}


def welcome() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.heading(SurveyState.title, size="7", id="survey-title"),
            rx.cond(SurveyState.description != "", rx.text(SurveyState.description, size="3", color="var(--gray-11)")),
            rx.text(view.AGREEMENTS_INTRO, weight="medium", size="3"),
            rx.el.ul(
                *[rx.el.li(rx.text(item, size="3")) for item in view.AGREEMENTS],
                style={
                    "paddingLeft": "20px",
                    "margin": "0",
                    "display": "flex",
                    "flexDirection": "column",
                    "gap": "6px",
                },
                id="survey-agreements",
            ),
            rx.button(SurveyState.start_label, size="3", on_click=SurveyState.start_survey, id="start-survey"),
            spacing="4",
            align="start",
        ),
        size="4",
        style=_CARD,
        id="survey-welcome",
    )


def question() -> rx.Component:
    current = SurveyState.current
    return rx.card(
        rx.vstack(
            rx.hstack(
                rx.text(SurveyState.progress, size="2", weight="medium", color="var(--gray-11)", id="survey-progress"),
                rx.cond(
                    current["required"].to(bool),
                    rx.badge("Required", color_scheme="red", variant="soft", id="survey-required"),
                ),
                spacing="2",
                align="center",
            ),
            question_body(SurveyState),
            rx.hstack(
                rx.button(
                    "Back",
                    variant="soft",
                    color_scheme="gray",
                    size="3",
                    on_click=SurveyState.go_back,
                    disabled=~SurveyState.can_go_back,
                    id="survey-back",
                ),
                rx.cond(
                    SurveyState.is_last,
                    rx.button(
                        rx.cond(SurveyState.submitting, view.SUBMITTING, "Submit"),
                        size="3",
                        on_click=SurveyState.submit,
                        disabled=SurveyState.submitting | ~SurveyState.can_submit,
                        loading=SurveyState.submitting,
                        id="survey-submit",
                    ),
                    rx.button("Continue", size="3", on_click=SurveyState.go_next, id="survey-continue"),
                ),
                justify="between",
                width="100%",
                padding_top="8px",
            ),
            spacing="4",
            align="start",
            width="100%",
        ),
        size="4",
        style=_CARD,
        id="survey-question",
        data_answers="question",
    )


@screen(SurveyState)
def survey_view(*, signed_in: rx.Var[bool], referral: rx.Var[bool], starts_itself: bool = False) -> rx.Component:
    """`starts_itself`: the view enters the test when mounted (the staff preview); on the rating page
    the page's load event has entered it already."""
    in_progress = (SurveyState.phase == view.QUESTIONS) | (SurveyState.phase == view.END)
    return rx.vstack(
        bridge(SurveyState),
        rx.cond(
            in_progress,
            rx.hstack(rx.spacer(), timer(SurveyState), width="100%", style={"maxWidth": "760px", "margin": "0 auto"}),
        ),
        rx.match(
            SurveyState.phase,
            (view.WELCOME, welcome()),
            (view.QUESTIONS, question()),
            (view.END, end_step(SurveyState)),
            (view.THANK_YOU, thank_you(SurveyState, signed_in=signed_in, referral=referral)),
            (
                "reviewed",
                rx.callout("You've already reviewed this test.", icon="info", id="survey-reviewed", style=_CARD),
            ),
            rx.center(rx.spinner(size="3"), padding="48px"),
        ),
        timeout_modal(SurveyState),
        width="100%",
        spacing="4",
        data_survey_phase=SurveyState.phase,
        id="survey-root",
        **({"on_mount": SurveyState.begin} if starts_itself else {}),
    )
