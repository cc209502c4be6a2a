"""/referral (screen 14): help grow the community, earn $20 per referee paid for a first test."""

from __future__ import annotations

import reflex as rx

from portal.components.layout import loading, main_layout
from portal.domain import referrals as rules
from portal.states.referral import ReferralState


def _step(number: int, title: str, text: str) -> rx.Component:
    return rx.card(
        rx.hstack(
            rx.center(
                rx.text(str(number), weight="bold", color="white"),
                background="var(--accent-9)",
                border_radius="9999px",
                width="32px",
                height="32px",
                flex_shrink="0",
            ),
            rx.vstack(
                rx.text(title, weight="bold"),
                rx.text(text, size="2", color="var(--gray-11)"),
                spacing="1",
            ),
            spacing="3",
            align="start",
        ),
        class_name="referral-step",
        flex="1",
        min_width="220px",
    )


def _link_card() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.el.label(rx.text("Your referral link", weight="bold"), html_for="referral-link"),
            rx.flex(
                rx.input(
                    value=ReferralState.link,
                    read_only=True,
                    id="referral-link",
                    width="100%",
                    size="3",
                    on_focus=rx.call_script("document.getElementById('referral-link').select()"),
                ),
                rx.button(
                    rx.icon("copy", size=16),
                    "Copy link",
                    on_click=ReferralState.copy_link,
                    id="referral-copy",
                    size="3",
                ),
                gap="8px",
                width="100%",
                direction=rx.breakpoints(initial="column", sm="row"),
            ),
            rx.text("Share it by e-mail, chat or on LinkedIn.", size="2", color="var(--gray-11)"),
            spacing="2",
            width="100%",
        ),
        size="3",
        width="100%",
    )


def _referees() -> rx.Component:
    table = rx.table.root(
        rx.table.header(
            rx.table.row(
                rx.table.column_header_cell("Name"),
                rx.table.column_header_cell("Joined"),
                rx.table.column_header_cell("Status"),
            )
        ),
        rx.table.body(
            rx.foreach(
                ReferralState.referees,
                lambda r: rx.table.row(
                    rx.table.cell(r["first_name"]),
                    rx.table.cell(r["joined"]),
                    rx.table.cell(r["status"]),
                    class_name="referee-row",
                ),
            )
        ),
        width="100%",
        id="referees",
    )
    return rx.card(
        rx.vstack(
            rx.flex(
                rx.heading("Your referrals", size="4", as_="h2"),
                rx.text("Total earned: ", rx.text.strong(ReferralState.total_earned, id="referral-total"), size="3"),
                justify="between",
                align="center",
                wrap="wrap",
                gap="8px",
                width="100%",
            ),
            rx.cond(
                ReferralState.referees.length() > 0,
                rx.box(table, overflow_x="auto", width="100%"),
                rx.text(rules.NO_REFEREES, color="var(--gray-11)", id="no-referees"),
            ),
            spacing="3",
            width="100%",
        ),
        size="3",
        width="100%",
    )


def _widget() -> rx.Component:
    return rx.cond(
        ReferralState.widget_url != "",
        rx.el.iframe(
            src=ReferralState.widget_url,
            title="Referral programme",
            id="referral-widget",
            style={"width": "100%", "minHeight": "480px", "border": "0", "borderRadius": "12px"},
            custom_attrs={
                "referrerPolicy": "no-referrer",
                "loading": "lazy",
                "sandbox": "allow-scripts allow-same-origin allow-forms allow-popups",
            },
        ),
    )


def referral_page() -> rx.Component:
    content = rx.vstack(
        rx.vstack(
            rx.heading(rules.TITLE, size="7", as_="h1", id="referral-title"),
            rx.text(rules.BONUS_TEXT, color="var(--gray-11)"),
            spacing="1",
        ),
        rx.flex(
            *[_step(i, title, text) for i, (title, text) in enumerate(rules.STEPS, start=1)],
            gap="12px",
            wrap="wrap",
            width="100%",
        ),
        _link_card(),
        _referees(),
        _widget(),
        spacing="5",
        width="100%",
    )
    return main_layout(
        rx.cond(
            ReferralState.loaded,
            rx.cond(
                ReferralState.error != "",
                rx.callout(ReferralState.error, color_scheme="red", icon="triangle-alert"),
                content,
            ),
            loading(),
        )
    )
