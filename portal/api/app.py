"""The /api/v1 application: its own FastAPI app (its OpenAPI 3.1 document at /api/v1/openapi.json), mounted into the
portal's FastAPI app beside the docs at /api/docs."""

from __future__ import annotations

import re

from fastapi import FastAPI
from starlette.routing import Mount

from portal.api import deps, docs, errors
from portal.api.request_guard import RequestGuard
from portal.api.routers import ROUTERS

PREFIX = "/api/v1"
DESCRIPTION = """The participant portal's REST API: tests, invites, reviews, rewards, participants, results and
webhooks, under the same rules as the staff pages.

**Keys.** A super-admin makes a key at `/admin/api-keys` with scopes; send it as `Authorization: Bearer pk_...`.
A missing or revoked key answers 401, a scope the key lacks 403, too many requests 429 (with `Retry-After`).

**Errors** have one shape: `{"errors": [{"field": "...", "message": "..."}]}`.

**Lists** are newest first, `limit` rows a page; pass `next_cursor` back as `cursor` for the next page.

**Idempotency.** Every POST that moves money or a decision takes an `Idempotency-Key` header: a repeat with the same
key gets the first answer (with `Idempotent-Replayed: true`) and no second effect.

**Webhooks** are signed with the Standard Webhooks scheme (`webhook-id`, `webhook-timestamp`, `webhook-signature`)
and retried with backoff for more than 24 hours."""


def build_v1() -> FastAPI:
    v1 = FastAPI(
        title="Participant portal API",
        version="1.0.0",
        description=DESCRIPTION,
        openapi_url="/openapi.json",
        docs_url=None,
        redoc_url=None,
        responses=errors.ERRORS,
        servers=[{"url": PREFIX}],
        # operationId = the route function's name (list_tests, approve_review): what a generated client's
        # functions are called; tests/unit/test_api_schema_names.py keeps them unique.
        generate_unique_id_function=lambda route: route.name,
    )
    errors.install(v1)
    v1.add_middleware(RequestGuard)
    for router in ROUTERS:
        deps.document_scopes(router)  # x-required-scope on each operation
        v1.include_router(router)
    return v1


def install(api: FastAPI) -> None:
    """Mount /api/v1 and the docs at /api/docs into the portal's FastAPI app."""
    docs.install(api)
    api.mount(PREFIX, build_v1())
    # Every path under /api/v1 is the API's, a newline (%0A) in it too: Starlette's `.*` stops at one, and the
    # portal's own 404 (not the API's error shape) would answer.
    for route in api.router.routes:
        if isinstance(route, Mount) and route.path == PREFIX:
            route.path_regex = re.compile(route.path_regex.pattern, re.DOTALL)
