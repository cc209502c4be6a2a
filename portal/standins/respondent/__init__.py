"""A stand-in of the external research-participant service's API at /local-respondent on the portal itself (issue 39,
item 5), for `make run` with no RESPONDENT_API_KEY and for the tests. It answers only this machine.

- `GET  /local-respondent/api/v1/respondent-participant?projectId=&screenerResponseId=` -> {screenerResponseData,
  isInvited, errors} (the spec's `GET /tester/respondent-participant`), from its invitations;
- `POST /local-respondent/api/v1/completions` (Idempotency-Key) records a completion once per key;
- `POST /local-respondent/api/v1/projects/{projectId}/invitations` adds an invitation (tests, demos);
- `GET  /local-respondent/api/v1/completions` and the page `/local-respondent/completions`: what was reported.
Every /api call needs `Authorization: Bearer <the portal's RESPONDENT_API_KEY>`. Seeded: project `demo-project`
with screener responses `invited-1` (invited) and `not-invited-1` (screened, not invited).
"""

from __future__ import annotations

import functools
import hmac
import secrets
from html import escape
from typing import Any

from fastapi import APIRouter, Body, Depends, FastAPI, Header, HTTPException, Request
from fastapi.responses import HTMLResponse, JSONResponse

from portal.domain.local_oidc import is_loopback_client
from portal.settings import Settings, settings
from portal.standins.partner_store import PartnerStore

PREFIX = "/local-respondent"
NOT_LOCAL = "The local research-service stand-in only answers this computer."
SEED = {
    ("demo-project", "invited-1"): {"invited": True, "firstName": "Ada", "lastName": "Lovelace", "country": "US"},
    ("demo-project", "not-invited-1"): {"invited": False, "firstName": "Bob", "lastName": "Stone", "country": "US"},
}


def _invitation_key(project: str, response: str) -> str:
    return f"{project}\n{response}"


def seed(store: PartnerStore) -> None:
    for (project, response), body in SEED.items():
        store.put("respondent-invitation", _invitation_key(project, response), body)


@functools.cache
def store() -> PartnerStore:
    if not settings.local_respondent_active:
        raise RuntimeError("The local research-service stand-in does not run here (RESPONDENT_API_KEY, BASE_URL).")
    made = PartnerStore(settings.local_partners_db)
    seed(made)
    return made


def build_router(the_store: PartnerStore, api_key: str, trusted_proxies: list[str] | None = None) -> APIRouter:
    from portal.http.client import client_ip

    def local_only(request: Request) -> None:
        peer = request.client.host if request.client else ""
        if not is_loopback_client(peer, client_ip(request, trusted_proxies or [])):
            raise HTTPException(status_code=403, detail=NOT_LOCAL)

    def keyed(authorization: str = Header(default="")) -> None:
        if not hmac.compare_digest(authorization, f"Bearer {api_key}"):
            raise HTTPException(status_code=401, detail="Unknown API key.")

    router = APIRouter(prefix=PREFIX, dependencies=[Depends(local_only)], include_in_schema=False)
    api = APIRouter(prefix="/api/v1", dependencies=[Depends(keyed)])

    @api.get("/respondent-participant")
    def participant(projectId: str = "", screenerResponseId: str = "") -> dict[str, Any]:  # noqa: N803
        if not projectId or not screenerResponseId:
            return {
                "screenerResponseData": None,
                "isInvited": False,
                "errors": [{"message": "projectId and screenerResponseId are required"}],
            }
        found = the_store.get("respondent-invitation", _invitation_key(projectId, screenerResponseId))
        if found is None:
            return {"screenerResponseData": None, "isInvited": False, "errors": []}
        data = {k: v for k, v in found.items() if k != "invited"}
        data.update(
            participant_id=f"rp-{screenerResponseId}", projectId=projectId, screenerResponseId=screenerResponseId
        )
        return {"screenerResponseData": data, "isInvited": bool(found.get("invited")), "errors": []}

    @api.post("/projects/{project_id}/invitations")
    def invite(project_id: str, body: dict[str, Any] = Body(...)) -> dict[str, Any]:  # noqa: B008
        response = str(body.get("screenerResponseId") or "")
        if not response:
            raise HTTPException(status_code=400, detail="screenerResponseId is required")
        record = {
            "invited": body.get("invited", True) is True,
            "firstName": str(body.get("firstName") or ""),
            "lastName": str(body.get("lastName") or ""),
            "country": str(body.get("country") or "US"),
        }
        the_store.put("respondent-invitation", _invitation_key(project_id, response), record, replace=True)
        return {"projectId": project_id, "screenerResponseId": response, **record}

    @api.post("/completions")
    def complete(
        body: dict[str, Any] = Body(...),  # noqa: B008
        idempotency_key: str = Header(default="", alias="Idempotency-Key"),
    ) -> JSONResponse:
        if not idempotency_key:
            raise HTTPException(status_code=400, detail="Idempotency-Key is required")
        the_store.put("respondent-completion-request", secrets.token_hex(8), {"idempotencyKey": idempotency_key})
        new = the_store.put("respondent-completion", idempotency_key, dict(body))
        return JSONResponse({"received": True, "duplicate": not new}, status_code=201 if new else 200)

    @api.get("/completions")
    def completions(projectId: str = "") -> list[dict[str, Any]]:  # noqa: N803
        rows = the_store.all("respondent-completion")
        return [r for r in rows if not projectId or r.get("projectId") == projectId]

    @router.get("/completions", response_class=HTMLResponse)
    def page() -> str:
        rows = "".join(
            f"<tr><td>{escape(str(r['key']))}</td><td>{escape(str(r.get('projectId')))}</td>"
            f"<td>{escape(str(r.get('screenerResponseId')))}</td><td>{escape(str(r.get('testId')))}</td>"
            f"<td>{escape(str(r.get('status')))}</td></tr>"
            for r in the_store.all("respondent-completion")
        )
        return (
            "<!doctype html><html lang='en'><head><title>Research service (local): completions</title></head><body>"
            "<h1>Completions reported to the research service</h1><table id='completions'><thead><tr>"
            "<th>Key</th><th>Project</th><th>Screener response</th><th>Test</th><th>Status</th></tr></thead>"
            f"<tbody>{rows}</tbody></table></body></html>"
        )

    router.include_router(api)
    return router


def router(config: Settings = settings) -> APIRouter:
    if not config.local_respondent_active:
        raise RuntimeError("The local research-service stand-in does not run here.")
    the_store = store() if config is settings else PartnerStore(config.local_partners_db)
    if config is not settings:
        seed(the_store)
    return build_router(the_store, config.respondent_api_key, config.trusted_proxies)


def standalone_app(the_store: PartnerStore, api_key: str) -> FastAPI:
    """The stand-in alone (tests serve it on a free loopback port)."""
    app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)
    app.include_router(build_router(the_store, api_key))
    return app
