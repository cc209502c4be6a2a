"""The `Idempotency-Key` header of the API's writes: one effect and one answer per key (services/api/idempotency)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Annotated, Any

from fastapi import Header
from fastapi.encoders import jsonable_encoder
from sqlmodel import Session
from starlette.responses import JSONResponse

from portal import db
from portal.api.deps import ApiCaller
from portal.api.errors import ApiError
from portal.services.api import idempotency as kept

REQUIRED = Annotated[
    str,
    Header(
        alias="Idempotency-Key",
        min_length=1,
        max_length=kept.KEY_MAX,
        description="A unique value per intended write (a UUID): a repeat with the same key gets the first answer "
        "and no second effect.",
    ),
]
OPTIONAL = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key", min_length=1, max_length=kept.KEY_MAX, description=REQUIRED.__metadata__[0].description
    ),
]


async def once(
    *,
    caller: ApiCaller,
    key: str | None,
    method: str,
    path: str,
    payload: Any,
    work: Callable[[Session], tuple[int, Any]],
) -> JSONResponse:
    """Run `work` once per key (or plainly without one) and answer its JSON; a replay says `Idempotent-Replayed`."""
    if key is None:
        status, answer = await db.run(lambda session: work(session))
        return JSONResponse(jsonable_encoder(answer), status_code=status)
    if not kept.valid_key(key):
        raise ApiError(422, kept.KEY_INVALID, field="Idempotency-Key")
    print_ = kept.fingerprint(method, path, jsonable_encoder(payload))

    def encoded(session: Session) -> tuple[int, Any]:
        status, answer = work(session)
        return status, jsonable_encoder(answer)

    result = await asyncio.to_thread(kept.run_once, key_id=caller.key.id, key=key, print_=print_, work=encoded)
    headers = {"Idempotent-Replayed": "true"} if result.replayed else None
    return JSONResponse(result.body, status_code=result.status, headers=headers)
