"""/thank-you after sign-up (screen 12): what happens next and how to whitelist our e-mails."""

from __future__ import annotations

import reflex as rx

from portal.components.layout import auth_layout
from portal.settings import settings

SENDER = settings.mail_from

GUIDES = [
    (
        "Gmail",
        [
            "Open an e-mail from us (check Spam and Promotions too).",
            "If it is in Spam, click 'Report not spam'; if it is in Promotions, drag it to Primary.",
            f"Click the three dots next to Reply, choose 'Add to contacts list' for {SENDER}.",
        ],
    ),
    (
        "Outlook",
        [
            "Open Settings, then Mail, then Junk email.",
            f"Under 'Safe senders and domains', click Add and enter {SENDER}.",
            "Save. Messages from us will no longer go to Junk.",
        ],
    ),
    (
        "Yahoo",
        [
            "Open an e-mail from us; if it is in Spam, click 'Not spam'.",
            "Click the sender's name and choose 'Add to contacts'.",
            "Save the contact. Future invites will arrive in your Inbox.",
        ],
    ),
]


def _guide(name: str, steps: list[str]) -> rx.Component:
    return rx.accordion.item(
        header=f"Whitelist us in {name}",
        content=rx.el.ol(
            *[rx.el.li(rx.text(step, size="2")) for step in steps], style={"paddingLeft": "20px", "margin": 0}
        ),
        value=name.lower(),
    )


def thank_you_page() -> rx.Component:
    return auth_layout(
        rx.card(
            rx.vstack(
                rx.icon("circle-check", size=40, color="var(--green-9)"),
                rx.heading("Thanks for signing up!", size="6", as_="h1", id="thank-you-title"),
                rx.text(
                    "Your application will be reviewed. You will get a confirmation to your personal email "
                    "if you pass verification.",
                    color="var(--gray-11)",
                ),
                rx.heading(
                    "So our invites reach your inbox, add us to your safe senders:", as_="h2", size="2", weight="medium"
                ),
                rx.accordion.root(
                    *[_guide(name, steps) for name, steps in GUIDES],
                    type="single",
                    collapsible=True,
                    variant="soft",
                    width="100%",
                ),
                rx.link(
                    # The label wraps on a phone: the button grows with it instead of spilling out.
                    rx.button(
                        "You are all set! Back to Dashboard.",
                        size="3",
                        width="100%",
                        height="auto",
                        min_height="var(--base-button-height)",
                        padding_y="8px",
                    ),
                    href="/",
                    width="100%",
                    id="back-to-dashboard",
                ),
                spacing="4",
                width="100%",
            ),
            size="4",
            width="100%",
        )
    )
