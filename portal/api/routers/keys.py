"""GET /key: the key a request is made with (its id and scopes), to check a key works."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter
from pydantic import BaseModel

from portal.api.deps import ApiCaller, any_scope

router = APIRouter(tags=["keys"])


class KeyOut(BaseModel):
    id: int
    scopes: list[str]
    rate_per_minute: int


@router.get("/key", response_model=KeyOut, summary="The key of this request")
async def this_key(caller: Annotated[ApiCaller, any_scope()]) -> KeyOut:
    return KeyOut(id=caller.key.id, scopes=list(caller.key.scopes), rate_per_minute=caller.key.rate_per_minute)
