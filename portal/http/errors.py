"""How the API answers what went wrong: refused JSON bodies (400) and unhandled errors (500).

Every error answer has the shape the pages read: {"errors": [{"field": "_global", "message": ...}]}.
An unhandled exception is logged as one line (its traceback only at DEBUG level), sent to Sentry
when error reporting is on, and answered with a generic message: never a stack trace to the caller.
"""

from __future__ import annotations

import logging

from fastapi import FastAPI
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from portal.domain import messages
from portal.http.json_body import JsonBodyError
from portal.services.error_reporting import report_exception

log = logging.getLogger(__name__)


def global_error(message: str, status: int) -> JSONResponse:
    return JSONResponse({"errors": [{"field": "_global", "message": message}]}, status_code=status)


async def _refused_body(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, JsonBodyError)
    log.info("refused the body of %s %s: %s", request.method, request.url.path, exc.message)
    return global_error(exc.message, 400)


class UnhandledErrorMiddleware:
    """Catches what the routes let escape: one log line and a generic 500."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, tracking_send)
        except Exception as exc:
            detail = " ".join(str(exc).split())[:300]
            # One log line; the exception with its stack goes to Sentry when it is configured.
            report_exception(
                exc,
                "unhandled error in %s %s: %s: %s",
                scope.get("method"),
                scope.get("path"),
                type(exc).__name__,
                detail,
                logger=log,
            )
            log.debug("traceback of the unhandled error", exc_info=True)
            if not started:  # once the answer has begun there is nothing left to say
                await global_error(messages.SOMETHING_WENT_WRONG, 500)(scope, receive, send)


def install(api: FastAPI) -> None:
    """The error handling of the portal's API: 400 for refused bodies, a generic 500 for the rest."""
    api.add_exception_handler(JsonBodyError, _refused_body)
    api.add_middleware(UnhandledErrorMiddleware)
