"""The two page layouts of the spec: main (header, menu, footer) and auth (centred card)."""

from __future__ import annotations

import datetime

import reflex as rx
from reflex_base.event import EventSpec

from portal.components.banners import verification_banners
from portal.settings import settings
from portal.states.auth import SessionState, current_path, navigation_hidden
from portal.states.browser import portal_trigger

BRAND = "Participants Portal"


def logo() -> rx.Component:
    """The logo links home when signed in, else to sign-in."""
    mark = rx.hstack(
        rx.box(
            rx.icon("message-square-text", size=18, color="white"),
            background="var(--accent-9)",
            border_radius="8px",
            padding="6px",
            display="flex",
        ),
        rx.text(BRAND, weight="bold", size="4", color="var(--gray-12)", white_space="nowrap"),
        align="center",
        spacing="2",
    )
    linked = rx.link(
        mark,
        href=rx.cond(SessionState.signed_in, "/", "/sign-in"),
        underline="none",
        aria_label=f"{BRAND} home",
        id="logo-link",
    )
    # On the finish-sign-up route the logo is not a link until registration is complete.
    finishing = (current_path() == "/sign-up/finish") & ~SessionState.registration_complete
    return rx.cond(finishing, rx.box(mark, id="logo"), linked)


def _nav_link(label: str, href: str, external: bool = False) -> rx.Component:
    return rx.el.a(
        label,
        href=href,
        class_name="portal-nav-link",
        data_active=rx.cond(current_path() == href, "true", "false") if not external else "false",
        target="_blank" if external else None,
        rel="noopener noreferrer" if external else None,
    )


def _messages_link() -> rx.Component:
    """MESSAGES in the header, with the count of unread messages from staff (issue 38)."""
    return rx.el.a(
        "MESSAGES",
        rx.cond(
            SessionState.unread_messages > 0,
            rx.badge(
                SessionState.unread_messages,
                rx.el.span(" unread", class_name="sr-only"),
                variant="solid",
                radius="full",
                margin_left="6px",
                id="header-unread",
            ),
        ),
        href="/messages",
        class_name="portal-nav-link",
        data_active=rx.cond(current_path() == "/messages", "true", "false"),
        id="header-messages",
    )


def _sign_out_script() -> EventSpec:
    return portal_trigger("window.portalAuth.signOut()")


def avatar() -> rx.Component:
    return rx.avatar(fallback=SessionState.initial, size="2", radius="full", color_scheme=SessionState.avatar_color)


def _menu_tail(prefix: str) -> list[rx.Component]:
    return [
        rx.box(
            rx.text(SessionState.email, size="2", color="var(--gray-11)"), padding="6px 12px", id=f"{prefix}-menu-email"
        ),
        rx.menu.separator(),
        rx.menu.item("Account settings", on_select=rx.redirect("/account"), id=f"{prefix}-account"),
        rx.menu.item("Notifications", on_select=rx.redirect("/notifications"), id=f"{prefix}-notifications"),
        rx.menu.item("Sign Out", color="red", on_select=_sign_out_script(), id=f"{prefix}-sign-out"),
    ]


def user_menu() -> rx.Component:
    """Desktop: the avatar and name open a menu with the e-mail and Sign Out."""
    return rx.menu.root(
        rx.menu.trigger(
            rx.button(
                avatar(),
                rx.text(SessionState.full_name, weight="medium", id="header-user-name"),
                rx.icon("chevron-down", size=16),
                variant="ghost",
                color_scheme="gray",
                aria_label="Account menu",
                id="account-menu",
            )
        ),
        rx.menu.content(*_menu_tail("desktop"), align="end", style={"zIndex": 9999}),
    )


def mobile_menu() -> rx.Component:
    """Below 820 px every menu entry lives behind one button."""
    return rx.menu.root(
        rx.menu.trigger(
            rx.button(
                avatar(),
                rx.icon("menu", size=18),
                rx.cond(
                    SessionState.unread_messages > 0,
                    rx.badge(
                        SessionState.unread_messages,
                        rx.el.span(" unread", class_name="sr-only"),
                        variant="solid",
                        radius="full",
                        id="mobile-unread",
                    ),
                ),
                variant="ghost",
                color_scheme="gray",
                aria_label="Menu",
                id="mobile-menu",
            ),
        ),
        rx.menu.content(
            rx.box(rx.text(SessionState.full_name, weight="bold", size="2"), padding="6px 12px"),
            rx.menu.separator(),
            rx.cond(SessionState.referral_enabled, rx.menu.item("Referral", on_select=rx.redirect("/referral"))),
            rx.menu.item("TESTS", on_select=rx.redirect("/")),
            rx.menu.item("MY PROFILE", on_select=rx.redirect("/profile")),
            rx.menu.item(
                "MESSAGES",
                rx.cond(SessionState.unread_messages > 0, rx.badge(SessionState.unread_messages, variant="solid")),
                on_select=rx.redirect("/messages"),
                id="mobile-messages",
            ),
            rx.menu.item("HELP CENTER", on_select=rx.redirect(settings.help_center_url, is_external=True)),
            *_menu_tail("mobile"),
            align="end",
            style={"zIndex": 9999},
        ),
    )


def ready_marker() -> rx.Component:
    """Present once the page is hydrated and the user is known (browser tests wait for it)."""
    return rx.cond(SessionState.loaded, rx.el.span(id="portal-ready", hidden=True))


def header(show_navigation: bool = True) -> rx.Component:
    signed_in_part = rx.hstack(
        rx.hstack(
            rx.cond(SessionState.referral_enabled, _nav_link("Referral", "/referral")),
            _nav_link("TESTS", "/"),
            _nav_link("MY PROFILE", "/profile"),
            _messages_link(),
            _nav_link("HELP CENTER", settings.help_center_url, external=True),
            user_menu(),
            spacing="5",
            align="center",
            class_name="portal-desktop-only",
        ),
        rx.box(mobile_menu(), class_name="portal-mobile-only"),
        spacing="5",
        align="center",
    )
    visitor_part = rx.cond(
        SessionState.router.url.query_parameters.contains("respondent_profile_id"),
        rx.fragment(),
        rx.link(rx.button("Sign up", variant="soft"), href="/sign-up", id="header-sign-up"),
    )
    right = rx.cond(SessionState.signed_in, signed_in_part, rx.cond(SessionState.loaded, visitor_part, rx.fragment()))
    return rx.el.header(
        ready_marker(),
        rx.box(
            logo(),
            rx.spacer(),
            rx.cond(navigation_hidden(), rx.fragment(), right) if show_navigation else rx.fragment(),
            class_name="portal-header-inner",
        ),
        class_name="portal-header",
    )


def footer() -> rx.Component:
    year = datetime.date.today().year
    return rx.el.footer(
        rx.box(
            rx.text(f"© {year} {BRAND}", size="2", color="var(--gray-11)"),
            rx.link("Help center", href=settings.help_center_url, is_external=True, size="2"),
            class_name="portal-footer-inner",
        ),
        class_name="portal-footer",
    )


def loading() -> rx.Component:
    return rx.center(rx.spinner(size="3"), padding="64px", role="status", aria_label="Loading")


def main_layout(*children: rx.Component, show_navigation: bool = True, private: bool = True) -> rx.Component:
    """Main layout. Private pages render their content only once the user is known."""
    content = rx.box(verification_banners(), *children, class_name="portal-main")
    if private:
        content = rx.cond(SessionState.signed_in, content, loading())
    return rx.box(
        header(show_navigation=show_navigation),
        rx.el.main(content, style={"flex": "1"}),
        footer(),
        class_name="portal-page",
    )


def auth_layout(*children: rx.Component) -> rx.Component:
    return rx.box(
        header(),
        rx.el.main(rx.box(verification_banners(), *children, class_name="portal-card"), class_name="portal-auth-main"),
        footer(),
        class_name="portal-page",
    )
