"""GET /media/{key}: a stored file (test images), from the local directory or the S3 bucket.

Only keys the storage itself makes are answered (no '..', no absolute paths, no other characters)
and only with the types the portal keeps (PNG, JPEG, WebP, GIF), named by the key's extension and
never sniffed. Keys are content-addressed, so the answer may be cached for a year.
"""

from __future__ import annotations

import asyncio

from fastapi import APIRouter
from fastapi.responses import FileResponse, JSONResponse, Response, StreamingResponse

from portal.domain.images import CONTENT_TYPE_BY_EXTENSION
from portal.services.storage import MEDIA_PREFIX, LocalStorage, StorageError, storage, valid_key

router = APIRouter()
CACHE = "public, max-age=31536000, immutable"
NOT_FOUND = "Not found."


def _headers() -> dict[str, str]:
    return {
        "Cache-Control": CACHE,
        "X-Content-Type-Options": "nosniff",
        "Content-Security-Policy": "default-src 'none'; sandbox",
    }


@router.api_route(MEDIA_PREFIX + "/{key:path}", methods=["GET", "HEAD"])
async def media(key: str) -> Response:
    content_type = CONTENT_TYPE_BY_EXTENSION.get(key.rsplit(".", 1)[-1]) if valid_key(key) else None
    store = storage()
    if content_type is None:
        return JSONResponse({"errors": [{"field": "_global", "message": NOT_FOUND}]}, status_code=404)
    try:
        if isinstance(store, LocalStorage):
            path = store.path(key)
            if not await asyncio.to_thread(path.is_file):
                raise StorageError(key)
            return FileResponse(path, media_type=content_type, headers=_headers())
        chunks = await asyncio.to_thread(store.open, key)
    except StorageError:
        return JSONResponse({"errors": [{"field": "_global", "message": NOT_FOUND}]}, status_code=404)
    return StreamingResponse(chunks, media_type=content_type, headers=_headers())
