"""The FastAPI app that Reflex mounts its own app under (rx.App(api_transformer=...))."""

from __future__ import annotations

from fastapi import FastAPI

from portal.http import account_routes, verification_routes


def build_api() -> FastAPI:
    api = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)
    api.include_router(account_routes.router)
    api.include_router(verification_routes.router)

    @api.get("/api/health")
    async def health() -> dict[str, str]:
        return {"status": "ok"}

    return api
