"""What every /api/v1 request is checked for before a route reads it (issue 39): its size, its JSON's depth, and
characters the portal does not keep (control characters, lone surrogates; PostgreSQL refuses a NUL) in the path,
the query or any string of the JSON body. Refused with the API's error shape (413 too large, 422 otherwise), so no
route's database call ever sees such a value. The rules are portal/domain/json_text.py's and text.py's, as the
portal's other HTTP routes use them."""

from __future__ import annotations

import json
from urllib.parse import unquote

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from portal.domain import json_text, upload_limits
from portal.domain.text import clean_text

MAX_BODY_BYTES = upload_limits.TEST_FILE_BYTES  # a test's definition is the largest body the API takes
TOO_LARGE = f"The request is too large (at most {upload_limits.in_mb(MAX_BODY_BYTES)} MB)."
BAD_CHARACTERS = json_text.bad_characters("request")


async def _refuse(send: Send, status: int, message: str) -> None:
    body = json.dumps({"errors": [{"field": None, "message": message}]}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _clean_text(raw: str) -> bool:
    try:
        text = unquote(raw, errors="strict")
    except UnicodeDecodeError:
        return False
    return clean_text(text) == text


class RequestGuard:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        query = scope.get("query_string", b"").decode("latin-1")
        if not _clean_text(scope.get("path", "")) or not _clean_text(query.replace("+", " ")):
            await _refuse(send, 422, BAD_CHARACTERS)
            return
        if scope.get("method") not in ("POST", "PUT", "PATCH", "DELETE"):
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers", [])).get(b"content-length", b"")
        if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
            await _refuse(send, 413, TOO_LARGE)
            return
        raw = bytearray()
        more = True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            raw += message.get("body", b"")
            more = message.get("more_body", False)
            if len(raw) > MAX_BODY_BYTES:
                await _refuse(send, 413, TOO_LARGE)
                return
        if raw.strip():
            try:
                json_text.parse(bytes(raw), "request")
            except json_text.JsonRefused as refused:
                await _refuse(send, 422, refused.message)
                return
            except ValueError:
                pass  # not JSON: the route answers with its own 422
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": bytes(raw), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)
