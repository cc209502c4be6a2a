"""Whose tab is this: the account behind a session token, for the tab-owner check of every event.

Every websocket event is checked against the person its tab's state was filled for (see
portal/states/tab_owner.py). Resolving the token in the database on every event would cost a query
per keystroke, so the answer is kept in this process for OWNER_TTL_SECONDS; a page load (the
hydrate event, which sends the whole state) always asks the database again, so a session revoked
elsewhere is noticed at the latest on the next page load, and by every service call at once (they
resolve the token themselves).
"""

from __future__ import annotations

import time

from portal import db
from portal.services.sessions import live_account_id
from portal.services.tokens import hash_token, looks_like_token

OWNER_TTL_SECONDS = 30.0
MAX_CACHED = 50_000
ANONYMOUS = ""

_cache: dict[str, tuple[str, float]] = {}


def _owner(*, session, token: str) -> str:
    account_id = live_account_id(session=session, token=token)
    return f"account:{account_id}" if account_id is not None else ANONYMOUS


async def owner_of(token: str | None, *, fresh: bool = False) -> str:
    """'account:<id>' for a live session's token, else ANONYMOUS."""
    if not looks_like_token(token):
        return ANONYMOUS
    key = hash_token(token)
    now = time.monotonic()
    cached = _cache.get(key)
    if cached is not None and not fresh and cached[1] > now:
        return cached[0]
    owner = await db.run(_owner, token=token)
    if len(_cache) >= MAX_CACHED:
        _cache.clear()
    _cache[key] = (owner, now + OWNER_TTL_SECONDS)
    return owner

