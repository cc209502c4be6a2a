"""Health for load balancers: GET /health (the process answers) and GET /ready (it can serve: the
database answers at the newest migration, Redis answers when configured), both JSON. /ready answers
503 with the failing check named when it cannot serve, so a balancer stops sending it traffic.
/api/health stays as the older name of /health."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from portal.db import engine
from portal.services import readiness
from portal.settings import settings

router = APIRouter()
NO_STORE = {"Cache-Control": "no-store"}


@router.get("/health")
@router.get("/api/health")
async def health() -> JSONResponse:
    return JSONResponse({"status": "ok"}, headers=NO_STORE)


@router.get("/ready")
async def ready() -> JSONResponse:
    found = await asyncio.to_thread(readiness.checks, engine(), settings.redis_url)
    if readiness.ready(found):
        return JSONResponse({"status": "ready", "checks": found}, headers=NO_STORE)
    return JSONResponse({"status": "not ready", "checks": found}, status_code=503, headers=NO_STORE)
