"""The door in front of /_upload (portal/http/upload_guard.py), driven as the server drives it (ASGI):
what is refused from the headers alone (nothing of the body read), what is refused while the body
arrives (no more of it read than the limit), and what reaches Reflex (the same bytes)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from portal.http.upload_guard import MULTIPART_ROOM, NOT_ALLOWED, UploadDoor, UploadGuard

HANDLER = "state.import_file"
LIMIT = 1000
DOOR = UploadDoor(HANDLER, "manage-tests", LIMIT)
BOUNDARY = "b0undary"


def part(name: str, content: bytes, filename: str | None = "t.json") -> bytes:
    file = f'; filename="{filename}"' if filename is not None else ""
    return (
        (
            f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{name}"{file}\r\n'
            f"Content-Type: application/json\r\n\r\n"
        ).encode()
        + content
        + b"\r\n"
    )


def multipart(*parts: bytes) -> bytes:
    return b"".join(parts) + f"--{BOUNDARY}--\r\n".encode()


GOOD = multipart(part("files", b'{"name": "x"}'))


class Inner:
    """Reflex's app as the door sees it: records what reached it."""

    def __init__(self) -> None:
        self.called = False
        self.body = b""

    async def __call__(self, scope, receive, send) -> None:
        self.called = True
        while True:
            message = await receive()
            self.body += message.get("body", b"")
            if not message.get("more_body"):
                break
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})


def call(
    chunks: list[bytes],
    *,
    headers: dict[str, str] | None = None,
    may: bool = True,
    length: int | None = None,
    handler: str = HANDLER,
    content_type: str = f"multipart/form-data; boundary={BOUNDARY}",
) -> tuple[int, dict, int, Inner]:
    """(status, JSON answer, how many body messages the door pulled, the inner app)."""
    inner = Inner()
    guard = UploadGuard(
        inner, "/_upload", {HANDLER: DOOR}, staff_may=lambda token, permission: may and token == "staff"
    )
    sent = {"status": 0, "body": b""}
    pulled = 0
    base = {
        "reflex-client-token": "tab",
        "reflex-event-handler": handler,
        "content-type": content_type,
        "cookie": "portal_session=staff",
    }
    if length is not None:
        base["content-length"] = str(length)
    else:
        base["transfer-encoding"] = "chunked"
    base.update(headers or {})
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/_upload",
        "headers": [(k.encode(), v.encode()) for k, v in base.items() if v is not None],
    }

    async def receive() -> dict[str, Any]:
        nonlocal pulled
        if pulled < len(chunks):
            pulled += 1
            return {"type": "http.request", "body": chunks[pulled - 1], "more_body": pulled < len(chunks)}
        await asyncio.sleep(3600)  # the client waits for the answer

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            sent["status"] = message["status"]
        else:
            sent["body"] += message.get("body", b"")

    asyncio.run(asyncio.wait_for(guard(scope, receive, send), 10))
    answer = json.loads(sent["body"]) if sent["body"].startswith(b"{") else {"text": sent["body"].decode()}
    return sent["status"], answer, pulled, inner


def test_a_staff_upload_of_one_file_reaches_reflex_byte_for_byte():
    chunks = [GOOD[:10], GOOD[10:50], GOOD[50:]]
    status, answer, _, inner = call(chunks, length=len(GOOD))
    assert (status, answer) == (200, {"text": "ok"})
    assert inner.body == GOOD


@pytest.mark.parametrize(
    "headers,handler,status",
    [
        ({"reflex-client-token": None}, HANDLER, 400),  # no tab
        ({}, "state.other_handler", 400),  # a handler not declared (it takes no file, or does not exist)
        ({}, "", 400),
        ({"content-type": "application/json"}, HANDLER, 415),
        ({"content-type": "multipart/form-data"}, HANDLER, 415),  # no boundary
        ({"origin": "https://evil.example"}, HANDLER, 403),
        ({"cookie": None}, HANDLER, 403),  # anonymous
        ({"cookie": "portal_session=participant"}, HANDLER, 403),
    ],
)
def test_refused_from_the_headers_before_a_byte_of_the_body_is_read(headers, handler, status):
    answered, answer, pulled, inner = call([GOOD], headers=headers, handler=handler)
    assert answered == status and isinstance(answer.get("detail"), str) and answer["detail"]
    assert pulled == 0 and not inner.called


def test_a_caller_whose_role_lacks_the_permission_is_refused():
    status, answer, pulled, inner = call([GOOD], may=False)
    assert (status, answer, pulled, inner.called) == (403, {"detail": NOT_ALLOWED}, 0, False)


def test_a_declared_length_over_the_limit_is_refused_from_the_headers():
    status, answer, pulled, inner = call([GOOD], length=LIMIT + MULTIPART_ROOM + 1)
    assert (status, pulled, inner.called) == (413, 0, False)
    assert answer["detail"].startswith("The file is bigger than")


@pytest.mark.parametrize("declared", [None, 100])  # chunked (no length), or a length that lies
def test_a_body_over_the_limit_is_refused_while_it_arrives_and_the_rest_is_never_read(declared):
    chunk = b"x" * 10_000
    chunks = [part("files", b"")[:-2]] + [chunk] * 1000  # 10 MB would follow
    status, answer, pulled, inner = call(chunks, length=declared)
    assert status == 413 and not inner.called
    assert pulled <= (LIMIT + MULTIPART_ROOM) // len(chunk) + 2


@pytest.mark.parametrize(
    "body",
    [
        multipart(part("__reflex_event_args", b'{"extra": 1}', filename=None), part("files", b"{}")),  # extra arguments
        multipart(part("files", b"{}"), part("note", b"hello", filename=None)),  # another field
        multipart(part("files", b"{}"), part("files", b"{}")),  # two files where one is taken
        multipart(part("other", b"{}")),  # a file under another name
        multipart(part("files", b"{}", filename=None)),  # not a file
        GOOD[:-10],  # cut short
        b"not multipart at all",
    ],
)
def test_anything_but_the_files_the_handler_takes_is_refused(body):
    status, answer, _, inner = call([body], length=len(body))
    assert status == 400 and answer["detail"] and not inner.called


def test_an_upload_of_no_file_is_answered_with_nothing_and_reaches_no_handler():
    """The browser sends an empty form when its dropzone refused the file dropped (too big, not JSON): the
    caller was checked, there is nothing to read, and the dialog already says why."""
    body = multipart()
    status, _answer, _, inner = call([body], length=len(body))
    assert status == 200 and not inner.called
    status, _answer, _, inner = call([body], length=len(body), may=False)  # the caller is checked first
    assert status == 403 and not inner.called


def test_other_paths_and_methods_pass_untouched():
    inner = Inner()
    guard = UploadGuard(inner, "/_upload", {}, staff_may=lambda *_: False)

    async def go(scope):
        async def receive():
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message):
            pass

        await guard(scope, receive, send)

    asyncio.run(go({"type": "http", "method": "GET", "path": "/_upload/file.txt", "headers": []}))
    asyncio.run(go({"type": "http", "method": "POST", "path": "/api/other", "headers": []}))
    assert inner.called
