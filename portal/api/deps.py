"""Who calls the API: the key in `Authorization: Bearer <key>`, checked before a route runs (401 without a live
key, 403 without the route's scope, 429 over the key's rate); the route then passes `caller.actor` to the staff
service, which resolves the key again in its own transaction (deps.py, as in the FastAPI full-stack template)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Security
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute
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
SCOPE_EXTENSION = "x-required-scope"  # the OpenAPI operation's field naming the scope its key needs
ANY_SCOPE = "*"  # any live key (GET /key)


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
    caller.required_scope = scope  # type: ignore[attr-defined]  # read by route_scope (the OpenAPI document)
    return Depends(caller)


def any_scope() -> Any:
    """The dependency of a route any live key may call (it reads only the key itself)."""

    async def caller(found: Annotated[tuple[str, KeyInfo], Depends(_key)]) -> ApiCaller:
        value, key = found
        return ApiCaller(key=key, actor=ApiKeyCaller(value))

    caller.required_scope = ANY_SCOPE  # type: ignore[attr-defined]
    return Depends(caller)


def route_scope(dependant: Dependant) -> str | None:
    """The scope a route's key needs (ANY_SCOPE: any live key; None: the route takes no key), read from its
    dependencies, so a route cannot be documented with a scope other than the one it checks."""
    for dependency in dependant.dependencies:
        found = getattr(dependency.call, "required_scope", None) or route_scope(dependency)
        if found:
            return str(found)
    return None


def document_scopes(router: APIRouter) -> None:
    """Each operation of `router` says in its OpenAPI document the scope its key needs: `x-required-scope`."""
    for route in router.routes:
        if isinstance(route, APIRoute):
            scope = route_scope(route.dependant)
            if scope is not None:
                route.openapi_extra = {**(route.openapi_extra or {}), SCOPE_EXTENSION: scope}
