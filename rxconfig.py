"""Reflex configuration. Every value that differs per machine comes from portal.settings."""

import os

import reflex as rx

from portal.settings import settings

# With Redis, Reflex starts GRANIAN_WORKERS backend workers (its default: 2 x cores + 1); the portal's
# default is one per core (WEB_WORKERS; README, "Running on PostgreSQL and Redis with several workers").
if settings.redis_url:
    os.environ.setdefault("GRANIAN_WORKERS", str(settings.web_workers))

config = rx.Config(
    app_name="portal",
    telemetry_enabled=False,
    show_built_with_reflex=False,
    db_url=settings.database_url,
    redis_url=settings.redis_url or None,
    frontend_port=settings.port,
    backend_port=settings.port,
    api_url=settings.base_url,
    deploy_url=settings.base_url,
    # Only the portal's own origin (and CORS_EXTRA_ORIGINS) may read its answers with cookies or open
    # the websocket: Reflex gives this list to Starlette's CORS middleware and to the socket.io server.
    cors_allowed_origins=settings.cors_allowed_origins,
    # The one look of every page: Radix Themes, light, indigo on slate.
    plugins=[rx.plugins.RadixThemesPlugin(theme=rx.theme(
        appearance="light", accent_color="indigo", gray_color="slate", radius="large", scaling="100%"))],
    disable_plugins=[rx.plugins.SitemapPlugin],
)
