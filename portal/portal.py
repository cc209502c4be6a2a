"""The app: pages, their load events, the HTTP endpoints and the theme."""

from __future__ import annotations

import reflex as rx

from portal.http.app import build_api
from portal.pages.home import home_page, profile_page, referral_page
from portal.pages.not_found import not_found_page
from portal.pages.sign_in import sign_in_page
from portal.pages.sign_up import sign_up_page
from portal.states.auth import SessionState
from portal.states.sign_in import SignInState

BRAND = "Participants Portal"

app = rx.App(
    theme=rx.theme(appearance="light", accent_color="indigo", gray_color="slate", radius="large", scaling="100%"),
    stylesheets=["/portal.css"],
    head_components=[rx.script(src="/portal.js")],
    toaster=rx.toast.provider(duration=5000, close_button=True, position="top-center"),
    api_transformer=build_api(),
    html_lang="en",
)

# Public pages (auth layout).
app.add_page(sign_in_page, route="/sign-in", title=f"Sign in | {BRAND}", on_load=SignInState.load)
app.add_page(sign_up_page, route="/sign-up", title=f"Sign up | {BRAND}", on_load=SessionState.load_public)

# Private pages (main layout).
app.add_page(home_page, route="/", title=f"Tests | {BRAND}", on_load=SessionState.guard_private)
app.add_page(profile_page, route="/profile", title=f"My profile | {BRAND}", on_load=SessionState.guard_private)
app.add_page(referral_page, route="/referral", title=f"Referral | {BRAND}", on_load=SessionState.guard_private)

app.add_page(not_found_page, route="404", title=f"Page not found | {BRAND}")
