"""The API's one error shape, `{"errors": [{"field": ..., "message": ...}]}` (the spec's `data.errors`), for every
refusal: a bad body or parameter (422), a missing or revoked key (401), a scope the key lacks or a permission its
creator lacks (403), an unknown row (404), a state that forbids the action now (409), too many requests (429)."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse

from portal.services.admin.guard import StaffRefused
from portal.services.errors import ServiceError

log = logging.getLogger(__name__)


class ErrorItem(BaseModel):
    field: str | None = Field(description="The request field the message is about; null for the whole request.")
    message: str


class ErrorBody(BaseModel):
    errors: list[ErrorItem]


class ApiError(Exception):
    """A refusal of the API itself (not of a service): its status and message."""

    def __init__(self, status: int, message: str, *, field: str | None = None, headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status, self.message, self.field, self.headers = status, message, field, headers


class NotFound(ServiceError):
    """The row the path names does not exist (404)."""


class Conflict(ServiceError):
    """The row is not in a state that allows this now (409)."""


BODY_UNREADABLE = "The body could not be read: send JSON in UTF-8."


def body(status: int, items: list[dict[str, Any]], headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"errors": items}, status_code=status, headers=headers)


def _field(loc: Any) -> str | None:
    parts = [str(p) for p in loc if p not in ("body", "query", "path", "header")]
    return ".".join(parts) or None


def service_status(exc: ServiceError) -> int:
    if isinstance(exc, StaffRefused):
        return 403
    if isinstance(exc, NotFound):
        return 404
    if isinstance(exc, Conflict):
        return 409
    return 422


def service_error(exc: ServiceError) -> JSONResponse:
    fields = exc.errors or {exc.field: exc.message}
    items = [{"field": None if key == "_global" else key, "message": text} for key, text in fields.items()]
    listed = getattr(exc, "problems", None)  # [(field or None, message)]: several problems of one field kept apart
    if listed:
        items = [{"field": key, "message": text} for key, text in listed]
    return body(service_status(exc), items)


async def _validation(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    items = [{"field": _field(e.get("loc", ())), "message": str(e.get("msg", "Invalid value."))} for e in exc.errors()]
    return body(422, items)


async def _api_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ApiError)
    return body(exc.status, [{"field": exc.field, "message": exc.message}], exc.headers)


async def _service(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ServiceError)
    return service_error(exc)


async def _http(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, HTTPException)
    if exc.status_code == 400:  # FastAPI could not read the body (not UTF-8, say): a bad body, as documented (422)
        return body(422, [{"field": "body", "message": BODY_UNREADABLE}])
    message = {404: "Not found.", 405: "Method not allowed."}.get(exc.status_code, str(exc.detail))
    return body(exc.status_code, [{"field": None, "message": message}], getattr(exc, "headers", None))


def install(api: FastAPI) -> None:
    api.add_exception_handler(RequestValidationError, _validation)
    api.add_exception_handler(ApiError, _api_error)
    api.add_exception_handler(ServiceError, _service)
    api.add_exception_handler(HTTPException, _http)  # FastAPI's HTTPException is a subclass


# Every route's documented error answers (OpenAPI): the same shape for each status.
ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorBody, "description": text}
    for status, text in {
        401: "No API key, or one that is unknown or revoked.",
        403: "The key lacks the scope, or its creator the permission.",
        404: "Not found.",
        409: "Not allowed in the row's present state.",
        422: "A field or parameter is not valid.",
        429: "Too many requests with this key (see Retry-After).",
    }.items()
}
