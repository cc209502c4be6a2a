"""Verification banners shown above the content for each unverified e-mail of the signed-in user."""

from __future__ import annotations

import reflex as rx

from portal.domain.verification import AWAITING_VERIFICATION
from portal.states.auth import SessionState
from portal.states.verification import VerificationState


def _banner(kind: str, label: str, address: rx.Var[str]) -> rx.Component:
    return rx.callout.root(
        rx.flex(
            rx.callout.text(
                f"Please verify your {label} ",
                rx.text.strong(address),
                ". We sent you a link; check your inbox and spam folder.",
            ),
            rx.hstack(
                rx.button(
                    "Resend",
                    size="1",
                    variant="solid",
                    loading=VerificationState.sending == kind,
                    on_click=VerificationState.resend(kind),
                    id=f"resend-{kind}",
                ),
                rx.link(
                    "Update your email addresses",
                    href="/profile",
                    size="2",
                    high_contrast=True,
                    id=f"update-emails-{kind}",
                ),
                spacing="3",
                align="center",
                flex_shrink="0",
            ),
            gap="12px",
            align="center",
            justify="between",
            wrap="wrap",
            width="100%",
        ),
        color_scheme="amber",
        high_contrast=True,  # amber-11 on amber-3 is 4.24:1; the high-contrast text is AA
        role="status",
        id=f"banner-{kind}",
        width="100%",
    )


def awaiting_verification_banner() -> rx.Component:
    """The home page's word to a participant whose e-mails are confirmed but whom staff have not verified yet: why
    no test comes (issue 40). The e-mail banners above come first when an address is not confirmed."""
    return rx.cond(
        SessionState.signed_in
        & ~SessionState.verified
        & ~SessionState.is_staff
        & SessionState.email_verified
        & (SessionState.work_email_verified | (SessionState.work_email == "")),
        _awaiting(),
    )


def _awaiting() -> rx.Component:
    return rx.callout.root(
        rx.flex(
            rx.callout.text(AWAITING_VERIFICATION),
            rx.link("Complete your profile", href="/profile", size="2", high_contrast=True, id="awaiting-profile"),
            gap="12px",
            align="center",
            justify="between",
            wrap="wrap",
            width="100%",
        ),
        color_scheme="blue",
        high_contrast=True,
        role="status",
        id="banner-awaiting-verification",
        width="100%",
        margin_bottom="16px",
    )


def verification_banners() -> rx.Component:
    return rx.cond(
        SessionState.signed_in,
        rx.vstack(
            rx.cond(
                ~SessionState.email_verified & (SessionState.email != ""),
                _banner("personal", "email", SessionState.email),
            ),
            rx.cond(
                ~SessionState.work_email_verified & (SessionState.work_email != ""),
                _banner("work", "work email", SessionState.work_email),
            ),
            spacing="2",
            width="100%",
            margin_bottom="16px",
        ),
    )
