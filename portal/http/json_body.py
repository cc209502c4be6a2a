"""The one JSON-body reader of every API route, with limits on size, depth and characters.

A body that is empty, not JSON or not an object reads as {} (the route then answers with its
field errors, as before). A body that is too large, nested too deeply, or carries lone
surrogates or control characters in its strings raises `JsonBodyError`, which the API answers
with 400 `{"errors": [{"field": "_global", "message": ...}]}` (see `portal.http.errors`).
Refused rather than cleaned: an API caller learns its text was not taken as sent (websocket
events, which a person types, are cleaned instead: portal/states/event_guard.py).
"""

from __future__ import annotations

import json
import re
from itertools import accumulate
from typing import Any

from starlette.requests import Request

from portal.domain.text import MAX_DEPTH, clean_text

MAX_BODY_BYTES = 64 * 1024

TOO_LARGE = f"The request is too large (at most {MAX_BODY_BYTES // 1024} KB)."
TOO_DEEP = f"The request is nested too deeply (at most {MAX_DEPTH} levels)."
BAD_CHARACTERS = "The request contains characters that are not allowed (control characters or invalid Unicode)."

_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.S)
_BRACKETS = re.compile(rb"[\[\]{}]")


class JsonBodyError(Exception):
    """A request body the API refuses, with the message for the caller."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def nesting_depth(raw: bytes) -> int:
    """The deepest nesting of arrays and objects in a JSON text, found without parsing it."""
    brackets = _BRACKETS.findall(_STRING.sub(b'""', raw))
    return max(accumulate(1 if b in (b"[", b"{") else -1 for b in brackets), default=0)


def _check_text(value: Any) -> None:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            # Lone surrogates (a valid pair decodes to one character) and control characters other
            # than tab and line breaks: the portal's one rule for text (portal.domain.text).
            if clean_text(item) != item:
                raise JsonBodyError(BAD_CHARACTERS)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


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
    if nesting_depth(raw) > MAX_DEPTH:
        raise JsonBodyError(TOO_DEEP)
    try:
        value = json.loads(raw)
    except RecursionError as err:  # not reached after the depth check; never a 500 all the same
        raise JsonBodyError(TOO_DEEP) from err
    except ValueError:  # not JSON, or not UTF-8/16/32
        return {}
    if not isinstance(value, dict):
        return {}
    _check_text(value)
    return value
