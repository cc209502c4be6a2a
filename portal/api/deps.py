"""Who calls the API: the key in `Authorization: Bearer <key>`, checked before a route runs (401 without a live
key, 403 without the route's scope, 429 over the key's rate); the route then passes `caller.actor` to the staff
service, which resolves the key again in its own transaction (deps.py, as in the FastAPI full-stack template)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends, Security
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from portal import db
from portal.api import rate_limit
from portal.api.errors import ApiError
from portal.domain import api_keys as rules
from portal.services.admin import api_keys
from portal.services.admin.api_keys import KeyInfo
from portal.services.admin.guard import ApiKeyCaller

bearer = HTTPBearer(auto_error=False, description="An API key made at /admin/api-keys: `Bearer pk_...`")
CHALLENGE = {"WWW-Authenticate": "Bearer"}


@dataclass(frozen=True)
class ApiCaller:
    key: KeyInfo
    actor: ApiKeyCaller


async def _key(credentials: Annotated[HTTPAuthorizationCredentials | None, Security(bearer)]) -> tuple[str, KeyInfo]:
    if credentials is None or not credentials.credentials:
        raise ApiError(401, rules.MISSING_KEY, headers=CHALLENGE)
    value = credentials.credentials.strip()
    if not rules.looks_like_key(value):
        raise ApiError(401, rules.BAD_KEY, headers=CHALLENGE)
    found = await db.run(api_keys.authenticate, key=value)
    if found is None:
        raise ApiError(401, rules.BAD_KEY, headers=CHALLENGE)
    wait = await asyncio.to_thread(rate_limit.window().hit, found.id, found.rate_per_minute)
    if wait:
        raise ApiError(429, rules.RATE_LIMITED.format(seconds=wait), headers={"Retry-After": str(wait)})
    return value, found


def scoped(scope: str) -> Any:
    """The dependency of a route that needs `scope`."""
    if scope not in rules.SCOPES:
        raise ValueError(f"unknown scope {scope!r}")

    async def caller(found: Annotated[tuple[str, KeyInfo], Depends(_key)]) -> ApiCaller:
        value, key = found
        if scope not in key.scopes:
            raise ApiError(403, rules.OUT_OF_SCOPE.format(scope=scope))
        return ApiCaller(key=key, actor=ApiKeyCaller(value))

    caller.__name__ = f"scope_{scope.replace(':', '_')}"
    return Depends(caller)


def any_scope() -> Any:
    """The dependency of a route any live key may call (it reads only the key itself)."""

    async def caller(found: Annotated[tuple[str, KeyInfo], Depends(_key)]) -> ApiCaller:
        value, key = found
        return ApiCaller(key=key, actor=ApiKeyCaller(value))

    return Depends(caller)
