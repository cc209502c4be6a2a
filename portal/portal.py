"""The app: pages, their load events, the HTTP endpoints and the theme."""

from __future__ import annotations

import reflex as rx

from portal import gc_tuning
from portal.components import admin_pages
from portal.components.home_tables import ON_LOAD as HOME_TABLES_ON_LOAD
from portal.components.page_failure import page_error_boundary
from portal.http import first_view, security_headers, static_paths, unread_body, upload_guard
from portal.http.app import build_api
from portal.http.security_headers import portal_config_script
from portal.pages import admin as _staff_pages  # noqa: F401 - declares the staff pages
from portal.pages.account import account_page
from portal.pages.account_deletion import delete_account_page
from portal.pages.demo import demo_page
from portal.pages.descriptions import DESCRIPTIONS
from portal.pages.home import home_page
from portal.pages.messages import messages_page
from portal.pages.not_found import not_found_page
from portal.pages.notifications import notifications_page
from portal.pages.oidc import existing_account_page, linkedin_connect_page, verify_account_page
from portal.pages.onboarding import onboarding_page
from portal.pages.password_reset import forgot_page, reset_page, site_decider_page
from portal.pages.profile import profile_page
from portal.pages.rate import ROUTE as RATE_ROUTE
from portal.pages.rate import rate_page
from portal.pages.referral import referral_page
from portal.pages.sign_in import sign_in_page
from portal.pages.sign_up import sign_up_page
from portal.pages.thank_you import thank_you_page
from portal.pages.two_factor import two_factor_page
from portal.services import (
    error_reporting,
    invite_reminders,
    mail_sender,
    partner_sender,
    payout_runner,
    quality_flags,
    sms_sender,
    webhook_sender,
)
from portal.services.admin import launches as launch_scheduler
from portal.services.admin import scheduler as review_scheduler
from portal.services.captcha import script_url as captcha_script_url
from portal.services.taking import draft_writer
from portal.settings import settings
from portal.standins import tremendous as local_payouts
from portal.states import one_update
from portal.states.account import AccountState
from portal.states.account_deletion import DeleteAccountState
from portal.states.admin.guard import StaffState
from portal.states.auth import SessionState
from portal.states.demo import DemoOptInState
from portal.states.event_guard import guard_events, on_backend_exception
from portal.states.messages import MessagesState
from portal.states.notifications import NotificationsState
from portal.states.oidc import VerifyAccountState
from portal.states.onboarding import OnboardingState
from portal.states.page_load import PageLoadInHydrate
from portal.states.password_reset import ForgotPasswordState, ResetPasswordState
from portal.states.profile import ProfileState
from portal.states.referral import ReferralState
from portal.states.render_failure import on_frontend_exception
from portal.states.sign_in import SignInState
from portal.states.tab_owner import TabOwnerMiddleware
from portal.states.taking.rate import RateState
from portal.states.two_factor import TwoFactorChallengeState

BRAND = "Participants Portal"

# Errors and logged warnings go to Sentry when SENTRY_DSN is set (once per backend process).
error_reporting.init()


def head_scripts() -> list[rx.Component]:
    """The favicon (SVG, and the ICO for browsers without SVG icons), the public browser config
    (captcha provider and site key), the captcha script, portal.js. The config script is inline;
    the Content-Security-Policy allows exactly its text by hash."""
    scripts = [
        rx.el.link(rel="icon", href="/favicon.ico", sizes="32x32"),
        rx.el.link(rel="icon", href="/favicon.svg", type="image/svg+xml"),
        rx.script(portal_config_script()),
        rx.script(src="/portal.js"),
    ]
    if settings.captcha_enabled:
        scripts.append(rx.script(src=captcha_script_url(), custom_attrs={"async": True, "defer": True}))
    return scripts


app = rx.App(
    stylesheets=["/portal.css"],
    head_components=head_scripts(),
    toaster=rx.toast.provider(duration=5000, close_button=True, position="top-center"),
    # The portal's FastAPI routes around Reflex's app, the security headers around everything, and
    # an answer given before its request's body was read says Connection: close.
    # Page links are served without a redirect to their trailing-slash folder, hashed assets cached a year.
    # The rating page's HTML carries a test's welcome for a participant who may start it (http/first_view).
    # Reflex's /_upload is checked (handler, caller, size while streaming) before its body is read (http/upload_guard).
    api_transformer=[
        build_api(),
        static_paths.wrap,
        first_view.wrap,
        upload_guard.wrap,
        security_headers.wrap,
        unread_body.wrap,
    ],
    html_lang="en",
    backend_exception_handler=on_backend_exception,
    frontend_exception_handler=on_frontend_exception,
)
# A page that fails to render shows the portal's fallback and reports what crashed (logged, Sentry).
app.app_wraps[(55, "ErrorBoundary")] = page_error_boundary
# Malformed websocket events are refused with one log line; every text they carry is cleaned.
guard_events()

# Tabs belong to one person at a time: states filled for someone else are reset before any event.
app.add_middleware(TabOwnerMiddleware(), index=0)
# A tab's page load runs inside its hydrate event (one event per opened tab, not a chain of four).
app.add_middleware(PageLoadInHydrate())
# An event's delta and its browser events reach the browser in one message.
one_update.install()
# Start-up's objects leave the garbage collector's walks (portal/gc_tuning.py: long pauses under load).
app.register_lifespan_task(gc_tuning.settle_heap)
# Every backend worker delivers the e-mail outbox (when SMTP is configured).
app.register_lifespan_task(mail_sender.run_forever)
# Survey drafts queued when the process stops are written before it ends.
app.register_lifespan_task(draft_writer.writer.lifespan)
# Reviews nobody decided in AUTO_APPROVE_DAYS are approved (hourly, in every worker).
app.register_lifespan_task(review_scheduler.run_forever)
# Scheduled tests start running at their time (every 30 s, in every worker; each test once).
app.register_lifespan_task(launch_scheduler.run_forever)
# Review quality flags are computed for every test with new reviews (every minute, in every worker; each once).
app.register_lifespan_task(quality_flags.run_forever)
# Open invites about to expire get one reminder each (every 5 minutes, in every worker; each reminder once).
app.register_lifespan_task(invite_reminders.run_forever)
# Texts (confirmation codes, notifications chosen as texts) go out through the SMS provider (issue 38).
app.register_lifespan_task(sms_sender.run_forever)
# Approved rewards are ordered from the payout provider, and lost webhooks reconciled (every minute, in every worker).
app.register_lifespan_task(payout_runner.run_forever)
# Webhooks of API keys' subscriptions are signed and delivered from their outbox, with retries (issue 39; every worker).
app.register_lifespan_task(webhook_sender.run_forever)
# Reports owed to the partner platforms (research service completions, panel exchange callbacks; issue 39), with
# retries (every PARTNER_POLL_SECONDS, in every worker; each report claimed once).
app.register_lifespan_task(partner_sender.run_forever)
# Tremendous's local stand-in (no payout provider configured, loopback BASE_URL) delivers its rewards' e-mails
# and posts its webhooks (every second, in every worker; each once).
if settings.local_payouts_active:
    app.register_lifespan_task(local_payouts.run_forever)

# Public pages (auth layout).
app.add_page(
    sign_in_page,
    route="/sign-in",
    title=f"Sign in | {BRAND}",
    description=DESCRIPTIONS["/sign-in"],
    on_load=SignInState.load,
)
app.add_page(
    sign_up_page,
    route="/sign-up",
    title=f"Sign up | {BRAND}",
    description=DESCRIPTIONS["/sign-up"],
    on_load=SessionState.load_public,
)
# LinkedIn and Google (accounts issue).
# Onboarding (issue 4): the three steps of finishing the sign-up.
app.add_page(
    onboarding_page,
    route="/sign-up/finish",
    title=f"Finish your registration | {BRAND}",
    description=DESCRIPTIONS["/sign-up/finish"],
    on_load=OnboardingState.load,
)
app.add_page(
    existing_account_page,
    route="/existing-account",
    title=f"Existing account | {BRAND}",
    description=DESCRIPTIONS["/existing-account"],
    on_load=SessionState.load_public,
)
app.add_page(
    verify_account_page,
    route="/verify-account",
    title=f"Verify your account | {BRAND}",
    description=DESCRIPTIONS["/verify-account"],
    on_load=[SessionState.load_public, VerifyAccountState.reset_status],
)
app.add_page(
    linkedin_connect_page,
    route="/linkedin-connect",
    title=f"Connect LinkedIn | {BRAND}",
    description=DESCRIPTIONS["/linkedin-connect"],
    on_load=SessionState.guard_private,
)
# Password recovery. /reset keeps its token out of Referer headers.
app.add_page(
    site_decider_page,
    route="/site-decider",
    title=f"Recover your password | {BRAND}",
    description=DESCRIPTIONS["/site-decider"],
    on_load=SessionState.load_public,
)
app.add_page(
    forgot_page,
    route="/forgot",
    title=f"Forgot your password | {BRAND}",
    description=DESCRIPTIONS["/forgot"],
    on_load=[SessionState.load_public, ForgotPasswordState.load],
)
app.add_page(
    reset_page,
    route="/reset",
    title=f"Create new password | {BRAND}",
    description=DESCRIPTIONS["/reset"],
    on_load=[SessionState.load_public, ResetPasswordState.load],
    meta=[{"name": "referrer", "content": "no-referrer"}],
)

# Private pages (main layout).
app.add_page(
    home_page,
    route="/",
    title=f"Tests | {BRAND}",
    description=DESCRIPTIONS["/"],
    on_load=[SessionState.guard_private, *HOME_TABLES_ON_LOAD, DemoOptInState.load],
)
app.add_page(
    profile_page,
    route="/profile",
    title=f"My profile | {BRAND}",
    description=DESCRIPTIONS["/profile"],
    on_load=[SessionState.guard_private, ProfileState.load],
)
app.add_page(
    demo_page,
    route="/demo",
    title=f"Live demo meetings | {BRAND}",
    description=DESCRIPTIONS["/demo"],
    on_load=[SessionState.guard_private, DemoOptInState.load_page],
)
app.add_page(
    messages_page,
    route="/messages",
    title=f"Messages | {BRAND}",
    description=DESCRIPTIONS["/messages"],
    on_load=[SessionState.guard_private, MessagesState.load],
)
app.add_page(
    two_factor_page,
    route="/two-factor",
    title=f"Two-factor sign-in | {BRAND}",
    description=DESCRIPTIONS["/two-factor"],
    on_load=[SessionState.load_public, TwoFactorChallengeState.load],
)
app.add_page(
    account_page,
    route="/account",
    title=f"Account settings | {BRAND}",
    description=DESCRIPTIONS["/account"],
    on_load=[SessionState.guard_private, AccountState.load],
)
app.add_page(
    delete_account_page,
    route="/account/delete",
    title=f"Delete my account | {BRAND}",
    description=DESCRIPTIONS["/account/delete"],
    on_load=[SessionState.load_public, DeleteAccountState.load],
)
app.add_page(
    notifications_page,
    route="/notifications",
    title=f"Notifications | {BRAND}",
    description=DESCRIPTIONS["/notifications"],
    on_load=[SessionState.guard_private, NotificationsState.load],
)
app.add_page(
    referral_page,
    route="/referral",
    title=f"Referral | {BRAND}",
    description=DESCRIPTIONS["/referral"],
    on_load=[SessionState.guard_private, ReferralState.load],
)

app.add_page(
    rate_page,
    route=RATE_ROUTE,
    title=f"Rate the test | {BRAND}",
    description=DESCRIPTIONS[RATE_ROUTE],
    on_load=RateState.load_page,
)

app.add_page(
    thank_you_page,
    route="/thank-you",
    title=f"Thank you | {BRAND}",
    description=DESCRIPTIONS["/thank-you"],
    on_load=SessionState.guard_signed_in,
)

# Staff pages, each declared once with its route, title, permission and menu entry (components/admin_pages.py):
# one guard; anyone but staff gets the not-found page (and its title) at the same address.
for _page in admin_pages.PAGES:
    for _route in (_page.route, *_page.also_at):
        app.add_page(
            _page.component,
            route=_route,
            title=rx.cond(StaffState.allowed, f"{_page.title} | Admin | {BRAND}", f"Page not found | {BRAND}"),
            description=DESCRIPTIONS["404"],
            on_load=[SessionState.load_public, StaffState.guard, *_page.on_load],
        )

app.add_page(
    not_found_page,
    route="404",
    title=f"Page not found | {BRAND}",
    description=DESCRIPTIONS["404"],
    on_load=SessionState.load_public,
)
