"""The thank-you screen after a submission, for every kind (takes the kind's state class)."""

from __future__ import annotations

import reflex as rx

from portal.domain import partners as partner_rules
from portal.domain.taking import worker_details
from portal.states.taking.close_window import CloseWindowState, close_window_event

_CARD = {"width": "100%", "maxWidth": "760px", "margin": "0 auto"}


def _close_window() -> rx.Component:
    """The crowd-work ending: the spec's button; if the browser will not close the tab, say so."""
    return rx.vstack(
        rx.text(worker_details.CROWD_WORK_PAYMENT, size="3", id="thank-you-payment"),
        rx.button(worker_details.CLOSE_WINDOW, size="3", on_click=close_window_event(), id="thank-you-close"),
        # A live region present from the start, so a screen reader announces the text when it appears.
        rx.text(
            rx.cond(CloseWindowState.refused, worker_details.CLOSE_WINDOW_REFUSED, ""),
            size="2",
            color="var(--gray-11)",
            role="status",
            id="thank-you-close-refused",
        ),
        align="center",
        spacing="2",
    )


def completion_code_box(S) -> rx.Component:
    """A crowd-work respondent's completion code (issue 39): labelled, selectable, with a copy button."""
    return rx.vstack(
        rx.el.label(partner_rules.CODE_LABEL, html_for="completion-code", id="completion-code-label"),
        rx.hstack(
            rx.el.output(
                S.completion_code,
                id="completion-code",
                aria_labelledby="completion-code-label",
                style={"fontFamily": "monospace", "fontSize": "1.5rem", "letterSpacing": "0.15em", "userSelect": "all"},
            ),
            rx.button(
                rx.icon("copy", size=16),
                partner_rules.CODE_COPY,
                variant="soft",
                on_click=rx.set_clipboard(S.completion_code),
                id="completion-code-copy",
            ),
            align="center",
            justify="center",
            spacing="3",
            wrap="wrap",  # at 375 px the button goes under the code instead of past the card's edge
        ),
        rx.text(partner_rules.CODE_HELP, size="2", color="var(--gray-11)"),
        align="center",
        spacing="2",
        id="completion-code-box",
    )


def thank_you(S, *, signed_in: rx.Var[bool], referral: rx.Var[bool]) -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.icon("circle-check", size=40, color="var(--green-9)"),
            rx.heading(S.thank_title, size="7", id="thank-you-title"),
            rx.text(S.thank_description, size="3"),
            rx.cond(
                signed_in,
                rx.text(
                    "Your reward of ",
                    rx.el.strong(S.reward_label),
                    " is pending. Rewards are paid within 5 business days.",
                    size="3",
                    id="thank-you-reward",
                ),
            ),
            rx.cond(S.completion_code != "", completion_code_box(S)),
            rx.match(
                S.thank_action,
                (worker_details.CLOSE_WINDOW, _close_window()),
                (
                    worker_details.SIGN_UP_PROMO_BUTTON,
                    rx.cond(
                        signed_in,
                        rx.link(rx.button(worker_details.BACK_TO_HOMEPAGE, size="3"), href="/", id="thank-you-home"),
                        rx.vstack(
                            rx.heading(worker_details.SIGN_UP_PROMO_TITLE, size="4", as_="h2"),
                            rx.text(worker_details.SIGN_UP_PROMO_TEXT, size="3"),
                            rx.link(
                                rx.button(worker_details.SIGN_UP_PROMO_BUTTON, size="3"),
                                href="/sign-up",
                                id="thank-you-sign-up",
                            ),
                            align="center",
                            id="thank-you-promo",
                        ),
                    ),
                ),
                rx.link(rx.button(worker_details.BACK_TO_HOMEPAGE, size="3"), href="/", id="thank-you-home"),
            ),
            rx.cond(
                referral,
                rx.link(
                    "Invite colleagues and earn more: your referral link", href="/referral", id="thank-you-referral"
                ),
            ),
            spacing="4",
            align="center",
            text_align="center",
        ),
        size="4",
        style=_CARD,
        id="survey-thank-you",
    )
