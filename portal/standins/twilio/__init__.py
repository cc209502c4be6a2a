"""A stand-in of Twilio's Messages API at /local-sms on the portal itself, for `make run` with no SMS provider
configured and for the tests: the API the SDK calls, a page of the texts it "sent" (a newcomer reads a
confirmation code there) and a form to reply STOP or START as a phone would, in its own SQLite file
(LOCAL_SMS_DB). It exists only where portal/domain/sms_choice.py lets it run, and answers this machine only.
"""

from __future__ import annotations

import functools

from fastapi import APIRouter, Depends, FastAPI, HTTPException, Request

from portal.domain import sms_choice
from portal.domain.local_oidc import is_loopback_client
from portal.settings import Settings, settings
from portal.standins.twilio.routes import api_router, pages_router, post_incoming
from portal.standins.twilio.store import StandinConfig, Store, Text

NOT_LOCAL = "The local SMS stand-in only answers this computer."


def config_of(config: Settings) -> StandinConfig:
    return StandinConfig(
        db_path=config.local_sms_db,
        account_sid=config.twilio_account_sid,
        auth_token=config.twilio_auth_token,
        sender=config.twilio_from,
        webhook_url=f"{config.base_url}{sms_choice.WEBHOOK_PATH}",
    )


@functools.cache
def store() -> Store:
    if not settings.local_sms_active:
        raise RuntimeError("The local SMS stand-in does not run here (SMS_PROVIDER, TWILIO_ACCOUNT_SID, BASE_URL).")
    return Store(config_of(settings))


def build_router(the_store: Store, trusted_proxies: list[str] | None = None) -> APIRouter:
    from portal.http.client import client_ip

    def local_only(request: Request) -> None:
        peer = request.client.host if request.client else ""
        if not is_loopback_client(peer, client_ip(request, trusted_proxies or [])):
            raise HTTPException(status_code=403, detail=NOT_LOCAL)

    router = APIRouter(dependencies=[Depends(local_only)])
    router.include_router(api_router(the_store, sms_choice.PREFIX))
    router.include_router(pages_router(the_store, sms_choice.PREFIX))
    return router


def router(config: Settings = settings) -> APIRouter:
    if not config.local_sms_active:
        raise RuntimeError("The local SMS stand-in does not run here.")
    the_store = store() if config is settings else Store(config_of(config))
    return build_router(the_store, config.trusted_proxies)


def standalone_app(the_store: Store) -> FastAPI:
    """The stand-in alone (tests serve it on a free loopback port)."""
    app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)
    app.include_router(build_router(the_store))
    return app


__all__ = ["StandinConfig", "Store", "Text", "build_router", "post_incoming", "router", "standalone_app", "store"]
