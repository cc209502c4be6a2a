"""Reflex configuration. Every value that differs per machine comes from portal.settings."""

import os

import reflex as rx

from portal.settings import settings, state_lease_environment

# With Redis, Reflex starts GRANIAN_WORKERS backend workers (its default: 2 x cores + 1); the portal's
# default is one per core (WEB_WORKERS; README, "Running on PostgreSQL and Redis with several workers").
if settings.redis_url:
    os.environ.setdefault("GRANIAN_WORKERS", str(settings.web_workers))
    # State leases (Reflex's opportunistic lock): after an event the worker keeps the tab's lock and its
    # states for STATE_LEASE_SECONDS, so the tab's next events there (the page load's chain, the answers
    # that follow) neither load nor write them in Redis; the states are written when the lease ends, at
    # once when another worker asks for the tab's lock (a reconnect elsewhere: no sticky sessions), and
    # when the process stops. Measured: answer p95 358 -> 94 ms at 600 participants (bench/README.md);
    # docs/decisions.md, "State leases", says why no answer is lost by it.
    if settings.state_lease_seconds:
        for name, value in state_lease_environment(settings.state_lease_seconds).items():
            os.environ.setdefault(name, value)

config = rx.Config(
    app_name="portal",
    telemetry_enabled=False,
    show_built_with_reflex=False,
    db_url=settings.database_url,
    redis_url=settings.redis_url or None,
    # The Redis state lock (only with REDIS_URL). Reflex 0.10 takes a per-tab lock (SET NX PX) when an
    # event starts, runs the handler, sends its delta and events to the browser, and only then writes
    # the state with a fenced script that refuses the write (LockExpiredError) when the lock expired
    # meanwhile. The time under the lock is mostly waiting for the event loop: an answer's handler
    # takes 1-2 ms (the draft is written behind), but at 2,000 participants on one 2-core server the
    # loop's backlog held events past the 10 s default 2,136 times. 60 s leaves that backlog six
    # times the room; a dead worker's lock frees its tab after a minute at most (its events wait, the
    # page says 'Saving…' and keeps the answers). A refused write loses nothing any more (an answer
    # stays pending in the browser until a later event confirms it from the stored state, and is sent
    # again otherwise): the expiration only keeps refusals rare. An event that held its lock more
    # than 5 s is logged as a warning by Reflex: the sign of overload well before a refusal.
    # REFLEX_REDIS_LOCK_EXPIRATION and REFLEX_REDIS_LOCK_WARNING_THRESHOLD (ms) override both.
    redis_lock_expiration=60_000,
    redis_lock_warning_threshold=5_000,
    frontend_port=settings.port,
    backend_port=settings.port,
    # Loopback only on a loopback BASE_URL (`make run`), every interface elsewhere; LISTEN_HOST decides otherwise.
    backend_host=settings.listen_address,
    api_url=settings.base_url,
    deploy_url=settings.base_url,
    # Only the portal's own origin (and CORS_EXTRA_ORIGINS) may read its answers with cookies or open
    # the websocket: Reflex gives this list to Starlette's CORS middleware and to the socket.io server.
    cors_allowed_origins=settings.cors_allowed_origins,
    # The one look of every page: Radix Themes, light, indigo on slate.
    plugins=[
        rx.plugins.RadixThemesPlugin(
            theme=rx.theme(
                appearance="light", accent_color="indigo", gray_color="slate", radius="large", scaling="100%"
            )
        )
    ],
    disable_plugins=[rx.plugins.SitemapPlugin],
)
