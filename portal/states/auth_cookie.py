"""The session cookie as the server sees it: from the websocket handshake's Cookie header."""

from __future__ import annotations

from http.cookies import CookieError, SimpleCookie

import reflex as rx

from portal.http.client import SESSION_COOKIE


def session_token(state: rx.State) -> str | None:
    """The session token from the handshake's Cookie header; a malformed header is 'no session'."""
    raw = state.router.headers.cookie or ""
    jar = SimpleCookie()
    try:
        jar.load(raw)
    except CookieError:
        return None
    morsel = jar.get(SESSION_COOKIE)
    return morsel.value if morsel else None
