"""/test/{id}/rate/{step?}/{subStep?}: the rating flow (public, main layout, no navigation)."""

from __future__ import annotations

import reflex as rx

from portal.components.layout import main_layout, ready_marker
from portal.components.taking.screener import screener_view
from portal.components.taking.screens import screens
from portal.components.taking.thank_you import completion_code_box
from portal.domain.messages import PAGE_NOT_FOUND
from portal.states.auth import SessionState
from portal.states.taking.rate import RateState

ROUTE = "/test/[rate_test_id]/rate/[[rate_step]]/[[rate_sub_step]]"


def _message() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.icon("info", size=32, color="var(--accent-9)"),
            # The title is the page's heading; a message without one is the heading itself.
            rx.cond(
                RateState.message_title != "",
                rx.fragment(
                    rx.heading(RateState.message_title, size="6", id="access-title"),
                    rx.text(RateState.message_text, size="4", id="access-text"),
                ),
                rx.heading(RateState.message_text, size="4", weight="regular", id="access-text"),
            ),
            rx.cond(
                RateState.link_label != "",
                rx.link(rx.button(RateState.link_label, size="3"), href=RateState.link_url, id="access-link"),
            ),
            rx.link("Back to homepage", href="/", size="2"),
            spacing="3",
            align="center",
            text_align="center",
        ),
        size="4",
        style={"maxWidth": "560px", "margin": "48px auto", "width": "100%"},
        id="access-message",
        data_access=RateState.access,
    )


def _completed(respondent: bool) -> rx.Component:
    """A test this browser already completed (public respondents): the thank-you again."""
    return rx.card(
        rx.vstack(
            rx.icon("circle-check", size=40, color="var(--green-9)"),
            rx.heading("Thank you!", size="6"),
            rx.text(
                "You have already completed this test. Your answers were submitted.", size="3", id="completed-text"
            ),
            # A crowd-work respondent's completion code again (issue 39).
            rx.cond(RateState.completion_code != "", completion_code_box(RateState)),
            rx.cond(
                respondent,
                rx.text("You can close this window.", size="3"),
                rx.cond(
                    RateState.qualification_based & ~SessionState.signed_in,
                    rx.link(rx.button("Sign up", size="3"), href="/sign-up"),
                    rx.link(rx.button("Back to homepage", size="3"), href="/"),
                ),
            ),
            spacing="3",
            align="center",
            text_align="center",
        ),
        size="4",
        style={"maxWidth": "560px", "margin": "48px auto", "width": "100%"},
        id="test-completed",
    )


def _not_found() -> rx.Component:
    return rx.vstack(
        rx.heading("404", size="9", color="var(--accent-9)"),
        rx.text(PAGE_NOT_FOUND, size="4", id="not-found-text"),
        rx.link(rx.button("Back to home", size="3"), href="/", id="back-home"),
        align="center",
        spacing="4",
        padding="48px",
    )


def rate_page() -> rx.Component:
    return main_layout(
        ready_marker(),
        rx.box(
            rx.match(
                RateState.status,
                ("message", _message()),
                ("unavailable", _message()),
                ("not-found", _not_found()),
                ("thank-you", _completed(respondent=False)),
                ("respondent-thank-you", _completed(respondent=True)),
                ("screener", screener_view()),
                *[
                    (s.view, s.component(signed_in=SessionState.signed_in, referral=SessionState.referral_enabled))
                    for s in screens()
                ],
                rx.center(rx.spinner(size="3"), padding="64px", id="rate-loading"),
            ),
            key=RateState.loads.to_string(),
            width="100%",
        ),
        private=False,
    )
