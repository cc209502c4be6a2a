"""A stand-in of a panel exchange (Cint-style) at /local-panel on the portal itself (issue 39, item 5), for
`make run` with no PANEL_EXCHANGE_SECRET and for the tests. It answers only this machine, shares the portal's
derived secret (name `local-panel`), and keeps what it receives in LOCAL_PARTNERS_DB.

- `GET /local-panel/entry/{test_id}?rid=` sends a participant to the test with a signed entry link (`/links/...`
  gives the link as JSON); `tamper=1` spoils its signature (to see the refusal);
- `GET /local-panel/exit?outcome=&rid=&test=&ts=&sig=` is where the portal sends the participant back: the page
  shows the outcome and whether the signature held, and the exit is recorded;
- `POST /local-panel/api/callbacks` receives the server-to-server callback (X-Partner-Signature checked, one per
  Idempotency-Key); `GET /local-panel/api/callbacks` and `/local-panel/api/exits` list what arrived.
"""

from __future__ import annotations

import functools
import json
import secrets
from html import escape
from typing import Any
from urllib.parse import urlsplit

from fastapi import APIRouter, Depends, FastAPI, Header, HTTPException, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse

from portal.domain import partners as rules
from portal.domain.invites import rating_path
from portal.domain.local_oidc import is_loopback_client
from portal.settings import Settings, settings
from portal.standins.partner_store import PartnerStore

PREFIX = "/local-panel"
NOT_LOCAL = "The local panel-exchange stand-in only answers this computer."


@functools.cache
def store() -> PartnerStore:
    if not settings.local_panel_active:
        raise RuntimeError("The local panel-exchange stand-in does not run here (PANEL_EXCHANGE_SECRET, BASE_URL).")
    return PartnerStore(settings.local_partners_db)


def entry_link(*, base_url: str, name: str, secret: str, test_id: int, rid: str) -> str:
    return rules.signed_url(
        secret, f"{base_url}{rating_path(test_id)}", {rules.PANEL_PARAM: name, rules.RID_PARAM: rid}
    )


def build_router(
    the_store: PartnerStore, *, base_url: str, name: str, secret: str, trusted_proxies: list[str] | None = None
) -> APIRouter:
    from portal.http.client import client_ip

    def local_only(request: Request) -> None:
        peer = request.client.host if request.client else ""
        if not is_loopback_client(peer, client_ip(request, trusted_proxies or [])):
            raise HTTPException(status_code=403, detail=NOT_LOCAL)

    router = APIRouter(prefix=PREFIX, dependencies=[Depends(local_only)], include_in_schema=False)

    def link(test_id: int, rid: str, tamper: bool) -> str:
        url = entry_link(base_url=base_url, name=name, secret=secret, test_id=test_id, rid=rid or secrets.token_hex(6))
        if tamper:  # the rid changed after signing: the signature no longer matches
            url = url.replace(f"{rules.RID_PARAM}=", f"{rules.RID_PARAM}=X", 1)
        return url

    @router.get("/links/{test_id}")
    def links(test_id: int, rid: str = "", tamper: bool = False) -> dict[str, str]:
        return {"url": link(test_id, rid, tamper)}

    @router.get("/entry/{test_id}")
    def enter(test_id: int, rid: str = "", tamper: bool = False) -> RedirectResponse:
        return RedirectResponse(link(test_id, rid, tamper), status_code=303)

    @router.get("/exit", response_class=HTMLResponse)
    def exit_page(request: Request) -> HTMLResponse:
        params = {k: v for k, v in request.query_params.items()}
        valid = rules.verify(secret, urlsplit(str(request.url)).path, params)
        outcome = params.get(rules.OUTCOME_PARAM, "")
        rid = params.get(rules.RID_PARAM, "")
        the_store.put("panel-exit", secrets.token_hex(8), {**params, "valid": valid})
        shown = outcome if valid else "invalid signature"
        body = (
            "<!doctype html><html lang='en'><head><title>Panel exchange (local): back from the survey</title></head>"
            f"<body><main><h1>Back at the panel</h1><p>Outcome: <strong id='panel-outcome'>{escape(shown)}</strong>"
            f"</p><p>Respondent: <span id='panel-rid'>{escape(rid)}</span></p>"
            f"<p>Test: <span id='panel-test'>{escape(params.get(rules.TEST_PARAM, ''))}</span></p>"
            f"<p>Signature: <span id='panel-signature'>{'valid' if valid else 'invalid'}</span></p>"
            "</main></body></html>"
        )
        return HTMLResponse(body, status_code=200 if valid else 400)

    @router.post("/api/callbacks")
    async def callback(
        request: Request,
        idempotency_key: str = Header(default="", alias="Idempotency-Key"),
        timestamp: str = Header(default="", alias="X-Partner-Timestamp"),
        signature: str = Header(default="", alias="X-Partner-Signature"),
    ) -> JSONResponse:
        body = await request.body()
        if not rules.valid_body(secret, timestamp, body, signature):
            raise HTTPException(status_code=401, detail="Bad signature.")
        if not idempotency_key:
            raise HTTPException(status_code=400, detail="Idempotency-Key is required")
        try:
            payload: Any = json.loads(body)
        except ValueError:
            raise HTTPException(status_code=400, detail="Not JSON.") from None
        # Every request is counted (a test sees a report sent twice), and kept once per Idempotency-Key.
        the_store.put("panel-callback-request", secrets.token_hex(8), {"idempotencyKey": idempotency_key})
        new = the_store.put("panel-callback", idempotency_key, payload if isinstance(payload, dict) else {})
        return JSONResponse({"received": True, "duplicate": not new}, status_code=201 if new else 200)

    @router.get("/api/callbacks")
    def callbacks(rid: str = "") -> list[dict[str, Any]]:
        return [r for r in the_store.all("panel-callback") if not rid or r.get("rid") == rid]

    @router.get("/api/callback-requests")
    def callback_requests() -> list[dict[str, Any]]:
        return the_store.all("panel-callback-request")

    @router.get("/api/exits")
    def exits(rid: str = "") -> list[dict[str, Any]]:
        return [r for r in the_store.all("panel-exit") if not rid or r.get(rules.RID_PARAM) == rid]

    return router


def router(config: Settings = settings) -> APIRouter:
    if not config.local_panel_active:
        raise RuntimeError("The local panel-exchange stand-in does not run here.")
    the_store = store() if config is settings else PartnerStore(config.local_partners_db)
    return build_router(
        the_store,
        base_url=config.base_url,
        name=config.panel_exchange_name,
        secret=config.panel_exchange_secret,
        trusted_proxies=config.trusted_proxies,
    )


def standalone_app(the_store: PartnerStore, *, base_url: str, name: str, secret: str) -> FastAPI:
    app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)
    app.include_router(build_router(the_store, base_url=base_url, name=name, secret=secret))
    return app
