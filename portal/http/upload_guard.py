"""The door in front of Reflex's upload endpoint (POST /_upload): every request is checked before a
byte of its body is read, and its body is counted while it arrives.

Reflex reads an upload's whole body (into temporary files) and only then calls the handler the
request names, whoever sent it; an unknown handler, one that takes no file or extra arguments end
in a 500 with a traceback. Here, in order, before Reflex sees the request:

1. the request names a tab and an upload handler the portal declared (`accept_upload`, beside the
   handler) — anything else is 400, an unknown handler the same as one that takes no file;
2. it is multipart/form-data (415), its declared Content-Length is within the handler's limit
   (413, answered from the headers alone);
3. it comes from the portal's own pages (Origin) and from a signed-in staff member whose role has
   the handler's permission (the session cookie, services/admin/guard.require_staff): 403;
4. the body is read here, counted chunk by chunk (a chunked body declares no length): past the
   limit it is refused with 413 at once, the rest never read (portal/http/unread_body.py then says
   `Connection: close`). Meanwhile it is kept in a temporary file (in memory up to 1 MB) and its
   multipart parts are read: only file parts named `files`, at most the handler's number of files,
   no other field (Reflex's `__reflex_event_args` would pass extra arguments): 400 otherwise;
5. Reflex then gets the same body, replayed from the file.

Every refusal is one log line and a short JSON answer `{"detail": ...}`, never a traceback.
The limits are portal/domain/upload_limits.py's.
"""

from __future__ import annotations

import asyncio
import logging
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from python_multipart.exceptions import MultipartParseError
from python_multipart.multipart import MultipartParser, parse_options_header
from starlette.datastructures import Headers
from starlette.requests import HTTPConnection
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from portal.domain.upload_limits import MULTIPART_ROOM, in_mb
from portal.http.client import SESSION_COOKIE, is_same_origin

log = logging.getLogger(__name__)

FILES_FIELD = "files"  # the field Reflex's browser code sends each file as (upload.js)
SPOOL_BYTES = 1024 * 1024  # a body larger than this waits in a temporary file, not in memory
REPLAY_CHUNK = 64 * 1024

NOT_AN_UPLOAD = "This is not an upload the portal accepts."
NOT_MULTIPART = "An upload is sent as multipart/form-data."
NOT_ALLOWED = "You do not have permission to do this."
ONLY_FILES = "This upload takes {files} and nothing else."
MALFORMED = "The upload could not be read."


def too_big(limit: int) -> str:
    return f"The file is bigger than {in_mb(limit)} MB."


@dataclass(frozen=True)
class UploadDoor:
    """What one upload handler takes: who may send it, how large its file may be, how many files."""

    handler: str  # the full event handler name the request's Reflex-Event-Handler header gives
    permission: str  # the staff permission (portal/domain/staff/roles.py)
    max_bytes: int  # the file's limit; the body may be MULTIPART_ROOM larger
    max_files: int = 1

    @property
    def body_limit(self) -> int:
        return self.max_files * (self.max_bytes + MULTIPART_ROOM)


DOORS: dict[str, UploadDoor] = {}


def accept_upload(state: Any, handler: str, *, permission: str, max_bytes: int, max_files: int = 1) -> UploadDoor:
    """Declare that `state`'s event handler `handler` takes uploads through /_upload (nothing else does).
    It must take the files and nothing else: the door lets no other argument through."""
    import inspect

    from reflex_base.event import resolve_upload_handler_param

    name = f"{state.get_full_name()}.{handler}"
    event_handler = state.event_handlers.get(handler)
    if event_handler is None:
        raise ValueError(f"{name} is not an event handler")
    param, _ = resolve_upload_handler_param(event_handler)  # UploadValueError: it takes no list[rx.UploadFile]
    if list(inspect.signature(event_handler.fn).parameters)[1:] != [param]:
        raise ValueError(f"{name} must take its files and nothing else")
    door = DOORS[name] = UploadDoor(name, permission, max_bytes, max_files)
    return door


def _staff_may(token: str | None, permission: str) -> bool:
    from portal.db import session_scope
    from portal.services.admin.guard import StaffRefused, require_staff
    from portal.services.sessions import resolve_user

    with session_scope() as session:
        user = resolve_user(session=session, token=token)
        try:
            require_staff(session, user.account_id if user is not None else None, permission)
        except StaffRefused:
            return False
        return True


class _Parts:
    """The multipart parts of a body as it arrives: (field name, whether it is a file) of each."""

    def __init__(self, boundary: bytes) -> None:
        self.parts: list[tuple[str, bool]] = []
        self.ended = False
        self._field, self._value, self._disposition = b"", b"", b""
        self.parser = MultipartParser(
            boundary,
            {
                "on_part_begin": self._begin,
                "on_header_field": self._header_field,
                "on_header_value": self._header_value,
                "on_header_end": self._header_end,
                "on_headers_finished": self._headers_finished,
                "on_end": self._end,
            },
        )

    def _begin(self) -> None:
        self._disposition = b""

    def _header_field(self, data: bytes, start: int, end: int) -> None:
        self._field += data[start:end]

    def _header_value(self, data: bytes, start: int, end: int) -> None:
        self._value += data[start:end]

    def _header_end(self) -> None:
        if self._field.lower() == b"content-disposition":
            self._disposition = self._value
        self._field, self._value = b"", b""

    def _headers_finished(self) -> None:
        kind, options = parse_options_header(self._disposition)
        name = options.get(b"name", b"").decode("latin-1")
        self.parts.append((name if kind == b"form-data" else "", b"filename" in options))

    def _end(self) -> None:
        self.ended = True

    def write(self, chunk: bytes) -> None:
        self.parser.write(chunk)

    def problem(self, door: UploadDoor) -> str | None:
        files = "one file" if door.max_files == 1 else f"at most {door.max_files} files"
        if not self.ended or not self.parts:
            return MALFORMED
        if len(self.parts) > door.max_files or any(part != (FILES_FIELD, True) for part in self.parts):
            return ONLY_FILES.format(files=files)
        return None


class UploadGuard:
    def __init__(
        self,
        app: ASGIApp,
        path: str,
        doors: dict[str, UploadDoor] = DOORS,
        staff_may: Callable[[str | None, str], bool] = _staff_may,
    ) -> None:
        self.app, self.path, self.doors, self.staff_may = app, path, doors, staff_may

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"].rstrip("/") != self.path:
            await self.app(scope, receive, send)
            return
        refusal = await self._refusal(scope)
        if refusal is not None:
            await _refuse(scope, receive, send, *refusal)
            return
        door = self.doors[Headers(scope=scope)["reflex-event-handler"]]
        body = await _receive_counted(receive, door, _boundary(scope))
        if isinstance(body, tuple):
            await _refuse(scope, receive, send, *body)
            return
        if body is None:  # the client went away
            return
        if body is NOTHING_SENT:  # an upload of no file (a dropzone that refused the dropped one): nothing to do
            await Response(b"", status_code=200, media_type="application/x-ndjson")(scope, receive, send)
            return
        try:
            await self.app(scope, _replay(body, receive), send)
        finally:
            body.close()

    async def _refusal(self, scope: Scope) -> tuple[int, str, str] | None:
        """(status, message, what to log) when the request is refused from its headers and its caller."""
        headers = Headers(scope=scope)
        handler = headers.get("reflex-event-handler", "")
        door = self.doors.get(handler)
        if not headers.get("reflex-client-token") or door is None:
            return 400, NOT_AN_UPLOAD, f"no upload handler {handler[:100]!r}"
        if _boundary(scope) is None:
            return 415, NOT_MULTIPART, f"not multipart for {handler[:100]!r}"
        declared = headers.get("content-length", "").strip()
        if declared.isdigit() and int(declared) > door.body_limit:
            return 413, too_big(door.max_bytes), f"a declared {declared} bytes for {handler[:100]!r}"
        conn = HTTPConnection(scope)
        if not is_same_origin(conn):
            return 403, NOT_ALLOWED, f"another origin for {handler[:100]!r}"
        if not await asyncio.to_thread(self.staff_may, conn.cookies.get(SESSION_COOKIE), door.permission):
            return 403, NOT_ALLOWED, f"a caller without {door.permission!r} for {handler[:100]!r}"
        return None


NOTHING_SENT: Any = object()  # `_receive_counted`: a well-formed body of no part at all


def _boundary(scope: Scope) -> bytes | None:
    kind, options = parse_options_header(Headers(scope=scope).get("content-type", ""))
    boundary = options.get(b"boundary")
    return boundary if kind == b"multipart/form-data" and boundary else None


async def _receive_counted(receive: Receive, door: UploadDoor, boundary: bytes | None) -> Any:
    """The body in a temporary file, counted and its parts read as it arrives; (status, message, log)
    as soon as it is refused; None when the client disconnected."""
    parts = _Parts(boundary or b"")
    body = tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES)
    size = 0
    try:
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                body.close()
                return None
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > door.body_limit:
                body.close()
                return 413, too_big(door.max_bytes), f"a body over {door.body_limit} bytes for {door.handler[:100]!r}"
            if chunk:
                parts.write(chunk)
                body.write(chunk)
            if not message.get("more_body", False):
                break
    except MultipartParseError:
        body.close()
        return 400, MALFORMED, f"a malformed multipart body for {door.handler[:100]!r}"
    if not parts.parts and size <= len(boundary or b"") + 8:
        body.seek(0)
        if (
            body.read().strip() == b"--" + (boundary or b"") + b"--"
        ):  # no file at all (the browser refused the one dropped)
            body.close()
            return NOTHING_SENT
    problem = parts.problem(door)
    if problem is not None:
        body.close()
        fields = [(name[:50], is_file) for name, is_file in parts.parts[:5]]
        return 400, problem, f"{problem.lower().rstrip('.')} ({door.handler[:100]!r}: {fields})"
    body.seek(0)
    return body


def _replay(body: Any, receive: Receive) -> Receive:
    """A receive that gives the kept body again, then waits on the client as the original does."""
    size = body.seek(0, 2)
    body.seek(0)

    async def replayed() -> Message:
        if body.closed or body.tell() >= size:
            return await receive()
        chunk = body.read(REPLAY_CHUNK)
        return {"type": "http.request", "body": chunk, "more_body": body.tell() < size}

    return replayed


async def _refuse(scope: Scope, receive: Receive, send: Send, status: int, message: str, reason: str) -> None:
    log.warning("refused an upload: %s", reason)
    await JSONResponse({"detail": message}, status_code=status)(scope, receive, send)


def wrap(app: ASGIApp) -> ASGIApp:
    """The api_transformer step (inside the security headers): the door of Reflex's upload endpoint."""
    from reflex_base import constants
    from reflex_base.config import get_config

    return UploadGuard(app, get_config().prepend_backend_path(str(constants.Endpoint.UPLOAD)).rstrip("/"))
