"""The stand-in's Tremendous API (v2), as much of it as tremendous-python 6.0.0 needs for the portal: orders
(create, list, get by id or external_id), rewards (get, resend), funding sources and campaigns. Bearer auth
with the stand-in's API key; errors in Tremendous's shape ({"errors": {"message", "payload"}})."""

from __future__ import annotations

import asyncio
import hmac
import json
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from portal.standins.tremendous.store import Refused, Store


def error(status: int, message: str, payload: dict[str, Any] | None = None) -> JSONResponse:
    return JSONResponse({"errors": {"message": message, "payload": payload or {}}}, status_code=status)


def api_router(store: Store, prefix: str) -> APIRouter:
    api = APIRouter(prefix=prefix)

    def refused(request: Request) -> JSONResponse | None:
        """The answer to a request without the stand-in's API key (None: it has it)."""
        expected = f"Bearer {store.config.api_key}"
        given = request.headers.get("authorization", "")
        if not hmac.compare_digest(given.encode(), expected.encode()):
            return error(401, "Access token is invalid or missing")
        return None

    @api.get("/funding_sources")
    async def list_funding_sources(request: Request) -> JSONResponse:
        return refused(request) or JSONResponse({"funding_sources": store.funding_sources()})

    @api.get("/campaigns")
    async def list_campaigns(request: Request) -> JSONResponse:
        return refused(request) or JSONResponse({"campaigns": store.campaigns()})

    @api.post("/orders")
    async def create_order(request: Request) -> JSONResponse:
        if answer := refused(request):
            return answer
        try:
            body = json.loads(await request.body())
        except ValueError:
            return error(400, "Invalid JSON")
        if not isinstance(body, dict):
            return error(400, "Invalid JSON")
        try:
            status, order = await asyncio.to_thread(store.create_order, body)
        except Refused as refusal:
            return error(refusal.status, refusal.message, refusal.payload)
        return JSONResponse({"order": order}, status_code=status)

    @api.get("/orders")
    async def list_orders(
        request: Request, external_id: str | None = None, offset: int = 0, limit: int = 10
    ) -> JSONResponse:
        if answer := refused(request):
            return answer
        return JSONResponse(await asyncio.to_thread(store.list_orders, external_id, offset, limit))

    @api.get("/orders/{order_id}")
    async def get_order(request: Request, order_id: str) -> JSONResponse:
        if answer := refused(request):
            return answer
        order = await asyncio.to_thread(store.order, order_id)
        return JSONResponse({"order": order}) if order else error(404, "Resource not found")

    @api.get("/rewards/{reward_id}")
    async def get_reward(request: Request, reward_id: str) -> JSONResponse:
        if answer := refused(request):
            return answer
        reward = await asyncio.to_thread(store.reward, reward_id)
        return JSONResponse({"reward": reward}) if reward else error(404, "Resource not found")

    @api.post("/rewards/{reward_id}/resend")
    async def resend_reward(request: Request, reward_id: str) -> JSONResponse:
        if answer := refused(request):
            return answer
        raw = await request.body()
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            return error(400, "Invalid JSON")
        if not isinstance(body, dict):
            return error(400, "Invalid JSON")
        if body.get("updated_phone"):
            return error(422, "The local stand-in delivers by e-mail only: give updated_email")
        email = body.get("updated_email")
        if email is not None and (not isinstance(email, str) or "@" not in email):
            return error(400, "Invalid updated_email", {"updated_email": ["is invalid"]})
        try:
            await asyncio.to_thread(store.resend, reward_id, email)
        except Refused as refusal:
            return error(refusal.status, refusal.message, refusal.payload)
        return JSONResponse({})

    return api
