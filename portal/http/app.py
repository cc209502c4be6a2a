"""The FastAPI app that Reflex mounts its own app under (rx.App(api_transformer=...))."""

from __future__ import annotations

from fastapi import FastAPI

from portal.api import app as rest_api
from portal.domain.local_oidc import is_loopback
from portal.http import (
    account_routes,
    errors,
    health_routes,
    image_routes,
    local_oidc_routes,
    media_routes,
    oauth_routes,
    password_routes,
    payout_webhook_routes,
    sms_webhook_routes,
    two_factor_routes,
    unsubscribe_routes,
    verification_routes,
)
from portal.settings import settings
from portal.standins import panel_exchange as local_panel
from portal.standins import referral_widget as local_referral_widget
from portal.standins import respondent as local_respondent
from portal.standins import tremendous as local_payouts
from portal.standins import twilio as local_sms
from portal.standins import webhook_inbox as local_webhook_inbox


def build_api() -> FastAPI:
    api = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)
    # Refused JSON bodies answer 400, anything unhandled a generic 500 (no stack trace).
    errors.install(api)
    # /health and /ready for load balancers.
    api.include_router(health_routes.router)
    api.include_router(account_routes.router)
    api.include_router(verification_routes.router)
    api.include_router(password_routes.router)
    # The second step of a two-factor sign-in (issue 40).
    api.include_router(two_factor_routes.router)
    # One-click unsubscribe of notification e-mails (issue 38, RFC 8058).
    api.include_router(unsubscribe_routes.router)
    # Incoming texts (STOP, START), signed by Twilio (issue 38, item 2).
    api.include_router(sms_webhook_routes.router)
    # Test images: staff upload them (streamed, size-checked as they arrive); /media/... serves them.
    api.include_router(image_routes.router)
    api.include_router(media_routes.router)
    # The payout provider's signed webhooks (issue 37).
    api.include_router(payout_webhook_routes.router)
    # `make run` on this machine with no LinkedIn or Google configured: the local sign-in stand-in.
    if settings.local_oidc_active:
        api.include_router(local_oidc_routes.router(settings))
    # No payout provider configured on this machine: Tremendous's local stand-in at /local-payouts.
    if settings.local_payouts_active:
        api.include_router(local_payouts.router(settings))
    if settings.local_sms_active:
        api.include_router(local_sms.router(settings))
    # Partner round trips (issue 39, item 5): no research service or panel exchange configured on this machine:
    # their local stand-ins at /local-respondent and /local-panel.
    if settings.local_respondent_active:
        api.include_router(local_respondent.router(settings))
    if settings.local_panel_active:
        api.include_router(local_panel.router(settings))
    # A local run: the demo referral programme's widget (issue 40).
    # ... and a customer's webhook receiver at /local-webhooks, to subscribe an API key to (issue 39).
    if is_loopback(settings.base_url):
        api.include_router(local_referral_widget.router(settings))
        api.include_router(local_webhook_inbox.router(settings))
    # The REST API at /api/v1, its OpenAPI 3.1 document and the docs at /api/docs (issue 39).
    rest_api.install(api)
    # LinkedIn and Google (OpenID Connect); its flow cookie middleware wraps only these routes.
    api.mount(oauth_routes.PREFIX, oauth_routes.build_app())

    return api
