"""POST /api/admin/tests/{test_id}/images/{slot}: staff upload a test image (the body is the file).

The body is the image's bytes as they are (`xhr.send(file)` in assets/portal.js), not a form: so
it is counted chunk by chunk as it arrives and refused with 413 as soon as it passes 250 MB
(or at once when its Content-Length says so), before it is kept in full. Meanwhile it is written
to a file in UPLOAD_TMP_DIR (never held in memory) and its SHA-256 taken. Then the image rule on
its header, the storage and the test's update (portal/services/admin/images.py).

Who may: the session cookie's staff member with the manage-tests permission, checked before a
byte of the body is read; the request must come from the portal's own pages (Origin).
"""

from __future__ import annotations

import asyncio
import logging
import os
import tempfile
from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from starlette.requests import ClientDisconnect

from portal.db import session_scope
from portal.domain import images as rules
from portal.domain import messages
from portal.http.client import SESSION_COOKIE, is_same_origin
from portal.services.admin import images as service
from portal.services.admin.guard import NOT_ALLOWED, StaffRefused
from portal.services.errors import ServiceError
from portal.services.sessions import resolve_user
from portal.settings import settings

log = logging.getLogger(__name__)
router = APIRouter()
ROUTE = "/api/admin/tests/{test_id}/images/{slot}"
WRITE_EVERY = 1024 * 1024  # arrived bytes are written to disk in pieces of about this size


def _refused(message: str, status: int) -> JSONResponse:
    return JSONResponse({"errors": [{"field": "image", "message": message}]}, status_code=status)


def _status_of(err: ServiceError) -> int:
    if isinstance(err, StaffRefused):
        return 403
    if isinstance(err, service.NotFound):
        return 404
    if isinstance(err, service.ImageRefused):
        return err.status
    return 400


def _caller_checked(token: str | None, test_id: str, slot: str) -> int | None:
    with session_scope() as session:
        user = resolve_user(session=session, token=token)
        actor = user.account_id if user is not None else None
        service.check_upload(session=session, actor_id=actor, test_id=test_id, slot=slot)
        return actor


class TooBig(Exception):
    pass


async def receive_to_disk(request: Request, directory: Path, limit: int = rules.MAX_IMAGE_BYTES) -> service.ImageFile:
    """The request's body in a new file of `directory`, counted as it arrives: TooBig (the file
    removed) as soon as it passes `limit`. The caller removes the file when done with it."""
    directory.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=directory, prefix="upload-")
    path = Path(name)
    digest, size, pending = service.digest(), 0, bytearray()
    try:
        with os.fdopen(fd, "wb") as out:
            async for chunk in request.stream():
                size += len(chunk)
                if size > limit:
                    raise TooBig()
                digest.update(chunk)
                pending += chunk
                if len(pending) >= WRITE_EVERY:
                    await asyncio.to_thread(out.write, bytes(pending))
                    pending.clear()
            if pending:
                await asyncio.to_thread(out.write, bytes(pending))
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    return service.ImageFile(path=path, size=size, sha256=digest.hexdigest())


@router.post(ROUTE)
async def upload_image(request: Request, test_id: str, slot: str) -> JSONResponse:
    if not is_same_origin(request):
        return _refused(NOT_ALLOWED, 403)
    token = request.cookies.get(SESSION_COOKIE)
    try:
        actor = await asyncio.to_thread(_caller_checked, token, test_id, slot)
    except ServiceError as err:
        return _refused(err.message, _status_of(err))
    declared = request.headers.get("content-length", "").strip()
    if declared.isdigit() and int(declared) > rules.MAX_IMAGE_BYTES:
        return _refused(rules.TOO_BIG, 413)
    try:
        upload = await receive_to_disk(request, settings.upload_tmp_dir)
    except TooBig:
        log.info("refused an image upload over %d bytes for test %s", rules.MAX_IMAGE_BYTES, test_id)
        return _refused(rules.TOO_BIG, 413)
    except ClientDisconnect:
        return _refused(messages.SOMETHING_WENT_WRONG, 400)
    try:
        url = await asyncio.to_thread(
            service.keep_upload,
            session_factory=session_scope,
            actor_id=actor,
            test_id=test_id,
            slot=slot,
            upload=upload,
        )
    except ServiceError as err:
        return _refused(err.message, _status_of(err))
    finally:
        upload.path.unlink(missing_ok=True)
    return JSONResponse({"url": url, "slot": slot})
