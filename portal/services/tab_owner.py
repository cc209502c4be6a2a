"""Whose tab is this: the account behind a session token, for the tab-owner check of every event.

Every websocket event is checked against the person its tab's state was filled for (see
portal/states/tab_owner.py). Resolving the token in the database on every event would cost a query
per keystroke, so the answer is kept in this process for about OWNER_TTL_SECONDS; a page load (the
hydrate event, which sends the whole state) always asks the database again, so a session revoked
elsewhere is noticed at the latest on the next page load, and by every service call at once (they
resolve the token themselves).

Once the kept answer is older than that, the next event still gets it and the database is asked in
the background (for at most STALE_SECONDS more; later, or when the background lookup failed, the event
waits for the database): an event never queues behind the lookup of an answer it already had. Each
answer is kept for between half and the whole TTL, at random, so tabs opened together (a wave of
arrivals, every tab reconnecting after a restart) do not all ask again in the same second (issue 18:
at 2,000 participants those waves were the slowest answers).
"""

from __future__ import annotations

import asyncio
import logging
import random
import time

from sqlmodel import Session

from portal import db
from portal.services.sessions import live_account_id
from portal.services.tokens import hash_token, looks_like_token

log = logging.getLogger(__name__)

OWNER_TTL_SECONDS = 30.0
STALE_SECONDS = 30.0
MAX_CACHED = 50_000
ANONYMOUS = ""

_cache: dict[str, tuple[str, float]] = {}
_refreshing: dict[str, asyncio.Task[None]] = {}


def _owner(session: Session, *, token: str) -> str:
    account_id = live_account_id(session=session, token=token)
    return f"account:{account_id}" if account_id is not None else ANONYMOUS


async def _lookup(key: str, token: str) -> str:
    owner = await db.run(_owner, token=token)
    if len(_cache) >= MAX_CACHED:
        _cache.clear()
    _cache[key] = (owner, time.monotonic() + OWNER_TTL_SECONDS * random.uniform(0.5, 1.0))
    return owner


async def _refresh(key: str, token: str) -> None:
    try:
        await _lookup(key, token)
    except Exception:  # noqa: BLE001 - the next event asks again, and waits for the answer
        log.exception("the tab owner's background lookup failed")
        _cache.pop(key, None)
    finally:
        _refreshing.pop(key, None)


async def owner_of(token: str | None, *, fresh: bool = False) -> str:
    """'account:<id>' for a live session's token, else ANONYMOUS."""
    if not looks_like_token(token):
        return ANONYMOUS
    key = hash_token(token)
    cached = _cache.get(key)
    if cached is None or fresh:
        return await _lookup(key, token)
    owner, expires = cached
    now = time.monotonic()
    if now < expires:
        return owner
    if now < expires + STALE_SECONDS:
        if key not in _refreshing:
            _refreshing[key] = asyncio.get_running_loop().create_task(_refresh(key, token))
        return owner
    return await _lookup(key, token)
