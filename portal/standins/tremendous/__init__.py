"""A stand-in of the Tremendous API at /local-payouts on the portal itself, for `make run` with no payout
provider configured and for the tests: the API the SDK calls (`api`), the recipient's pages (`pages`), and
its state with the delivery and webhooks (`store`), in its own SQLite file (LOCAL_PAYOUTS_DB).

`router()` refuses to build where it may not run (PAYOUT_PROVIDER, a TREMENDOUS_API_KEY, a non-loopback
BASE_URL); where it exists it answers clients on this machine only. `run_forever()` is the delivery loop
every backend worker runs (each delivery and webhook is claimed in the store, so it happens once).
"""

from __future__ import annotations

import asyncio
import functools
import logging

from fastapi import APIRouter, Depends, FastAPI, HTTPException, Request

from portal.domain import payout_choice
from portal.domain.local_oidc import is_loopback, is_loopback_client
from portal.settings import Settings, settings
from portal.standins.tremendous.api import api_router
from portal.standins.tremendous.pages import pages_router
from portal.standins.tremendous.store import InboxEmail, PendingWebhook, StandinConfig, Store

log = logging.getLogger(__name__)
TICK_SECONDS = 1.0
NOT_LOCAL = "The local payout stand-in only answers this computer."
WEBHOOK_PATH = "/webhooks/tremendous"


class LocalPayoutsRefused(RuntimeError):
    """The stand-in was asked for where it may not run."""


def config_of(config: Settings) -> StandinConfig:
    return StandinConfig(
        db_path=config.local_payouts_db,
        api_key=config.tremendous_api_key,
        campaign_id=config.tremendous_campaign_id,
        webhook_url=f"{config.base_url}{WEBHOOK_PATH}",
        webhook_key=config.tremendous_webhook_key,
        public_url=config.base_url,
        delivery_seconds=config.local_payouts_delivery_seconds,
    )


def _refuse_unless_active(config: Settings) -> None:
    if not config.local_payouts_active or not is_loopback(config.base_url):
        raise LocalPayoutsRefused(
            "The local payout stand-in does not run here (PAYOUT_PROVIDER, TREMENDOUS_API_KEY or a non-loopback "
            "BASE_URL)."
        )


@functools.cache
def store() -> Store:
    """The portal's stand-in store (from settings). LocalPayoutsRefused where the stand-in may not run."""
    _refuse_unless_active(settings)
    return Store(config_of(settings))


def build_router(the_store: Store, trusted_proxies: list[str] | None = None) -> APIRouter:
    """The stand-in's API and pages over `the_store`, answering this machine only."""
    from portal.http.client import client_ip

    def local_only(request: Request) -> None:
        peer = request.client.host if request.client else ""
        if not is_loopback_client(peer, client_ip(request, trusted_proxies or [])):
            raise HTTPException(status_code=403, detail=NOT_LOCAL)

    router = APIRouter(dependencies=[Depends(local_only)])
    router.include_router(api_router(the_store, payout_choice.API_PATH))
    router.include_router(pages_router(the_store, payout_choice.PREFIX))
    return router


def router(config: Settings = settings) -> APIRouter:
    """The portal's stand-in routes. Refuses (LocalPayoutsRefused) where the stand-in may not run."""
    _refuse_unless_active(config)
    the_store = store() if config is settings else Store(config_of(config))
    return build_router(the_store, config.trusted_proxies)


def standalone_app(the_store: Store) -> FastAPI:
    """The stand-in alone (tests/support/payout_standin.py serves it on a free loopback port)."""
    app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)
    app.include_router(build_router(the_store))
    return app


async def run_forever(the_store: Store | None = None, every: float = TICK_SECONDS) -> None:
    """Deliver what is due and post the webhooks, every `every` seconds (a lifespan task of every worker)."""
    the_store = the_store or store()
    while True:
        try:
            await asyncio.to_thread(the_store.tick)
        except asyncio.CancelledError:
            raise
        except Exception:  # keep the loop alive whatever one round hits
            log.exception("the local payout stand-in's delivery round failed")
        await asyncio.sleep(every)


__all__ = [
    "InboxEmail",
    "LocalPayoutsRefused",
    "PendingWebhook",
    "StandinConfig",
    "Store",
    "build_router",
    "router",
    "run_forever",
    "standalone_app",
    "store",
]
