"""The one JSON-body reader of every API route, with limits on size, depth and characters.

A body that is empty, not JSON or not an object reads as {} (the route then answers with its
field errors, as before). A body that is too large, nested too deeply, or carries lone
surrogates or control characters in its strings raises `JsonBodyError`, which the API answers
with 400 `{"errors": [{"field": "_global", "message": ...}]}` (see `portal.http.errors`).
Refused rather than cleaned: an API caller learns its text was not taken as sent (websocket
events, which a person types, are cleaned instead: portal/states/event_guard.py).
The depth and character rules are portal/domain/json_text.py's (the test import reads with them too).
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request

from portal.domain import json_text
from portal.domain.json_text import nesting_depth  # noqa: F401 (part of this module's interface)

MAX_BODY_BYTES = 64 * 1024

TOO_LARGE = f"The request is too large (at most {MAX_BODY_BYTES // 1024} KB)."
TOO_DEEP = json_text.too_deep("request")
BAD_CHARACTERS = json_text.bad_characters("request")

# A request body the API refuses, with the message for the caller.
JsonBodyError = json_text.JsonRefused


async def read_body(request: Request, limit: int = MAX_BODY_BYTES) -> bytes:
    """The raw body, refused (JsonBodyError) as soon as it is larger than `limit`."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise JsonBodyError(TOO_LARGE)
    raw = bytearray()
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > limit:
            raise JsonBodyError(TOO_LARGE)
    return bytes(raw)


async def read_json_object(request: Request) -> dict[str, Any]:
    """The request's JSON object ({} when empty, malformed or not an object); JsonBodyError for a
    body too large, too deep, or with characters that are not allowed."""
    raw = await read_body(request)
    if not raw.strip():
        return {}
    try:
        value = json_text.parse(raw, "request")
    except ValueError:  # not JSON, or not UTF-8/16/32
        return {}
    return value if isinstance(value, dict) else {}
