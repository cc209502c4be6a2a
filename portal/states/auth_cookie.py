"""The cookies as the server sees them: from the websocket handshake's Cookie header."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from http.cookies import CookieError, SimpleCookie
from types import MappingProxyType

from reflex.state import BaseState

from portal.http.client import SESSION_COOKIE

_NONE: Mapping[str, str] = MappingProxyType({})


def cookies_of(state: BaseState) -> Mapping[str, str]:
    """The tab's cookies (name: value); a malformed header has none."""
    # The header itself (`rx_router_headers`), not `state.router`, which builds the whole router view.
    return cookies_in_header(state.rx_router_headers.cookie or "")


@functools.lru_cache(maxsize=4096)
def cookies_in_header(raw: str) -> Mapping[str, str]:
    """A Cookie header's cookies, parsed once per header: every event of a tab carries the same
    header (the handshake's), and most events read it (the tab-owner check)."""
    jar = SimpleCookie()
    try:
        jar.load(raw)
    except CookieError:
        return _NONE
    return MappingProxyType({name: morsel.value for name, morsel in jar.items()})


def session_token(state: BaseState) -> str | None:
    """The session token from the handshake's Cookie header; a malformed header is 'no session'."""
    return cookies_of(state).get(SESSION_COOKIE)
